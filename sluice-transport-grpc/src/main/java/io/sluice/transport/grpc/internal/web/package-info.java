/**
 * gRPC-Web and HTTP/JSON on the gRPC server: the same registered services called by browsers
 * ({@code application/grpc-web}, {@code application/grpc-web-text}) and by plain HTTP clients
 * ({@code application/json}), over HTTP/2 streams and HTTP/1.1 connections alike. Not an API.
 */
package io.sluice.transport.grpc.internal.web;
