/**
 * The rxjava3 API: {@link io.reactivex.rxjava3.core.Completable}, {@link
 * io.reactivex.rxjava3.core.Single} and {@link io.reactivex.rxjava3.core.Flowable} over the core's
 * streams. Start with {@link io.sluice.rxjava.RxClient} and {@link io.sluice.rxjava.RxServer}.
 */
package io.sluice.rxjava;
