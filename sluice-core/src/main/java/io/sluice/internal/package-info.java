/**
 * The protocol engine. Internal: no compatibility promise; use {@code io.sluice.core}.
 *
 * <h2>The parts of one connection</h2>
 *
 * <p>Each connection is one {@link io.sluice.internal.SluiceConnection} and the parts it wires, all
 * confined to the connection's event loop (only {@code CommandQueue} is entered
 * from other threads):
 *
 * <pre>
 *   transport ──onFrame──▶ InboundFrames ──(stream 0, before SETUP)──▶ SetupHandshake
 *      ▲                      │   budgets, reassembly          │
 *      │                      │                                ├─▶ KeepAlive, Lease ─▶ LeasePolicy
 *      │                      ▼                                ▼
 *      │                  StreamTable: id ─▶ StreamState ─▶ listener (the API flavor)
 *      │                      ▲               │   request-n both ways
 *      │                      │ pumps         ▼
 *      │                 Writability      FrameWriter ── batch, fragments, flush rules
 *      │                (unwritable:           │
 *      │                 paused producers,     │
 *      └─write/flush──── read pause, stall) ◀──┘
 *
 *   other threads ──▶ CommandQueue ──(drained on the loop, in order)──▶ StreamState / requests
 * </pre>
 *
 * <ul>
 *   <li>{@link io.sluice.internal.SluiceConnection}: lifecycle (start, graceful close, close) and
 *       the {@link io.sluice.Requester} API; the transport's {@link
 *       io.sluice.transport.FrameReceiver}.
 *   <li>{@code InboundFrames}: checks each frame and dispatches it; reassembly
 *       and the per-second budgets of docs/limits.md.
 *   <li>{@code SetupHandshake}: SETUP, both sides.
 *   <li>{@code StreamTable} and {@code StreamState}: the live
 *       streams, their ids and credit, and the calls to their listeners.
 *   <li>{@code FrameWriter}: every outbound frame and when it is flushed.
 *   <li>{@code Writability}: what happens while the transport is full.
 *   <li>{@code CommandQueue}: calls from other threads.
 *   <li>{@code KeepAlive}: its timers.
 *   <li>{@code Lease}: leasing both ways: the peer's lease (what we may send, and {@code
 *       availability()} for other threads) and ours, decided by the {@link
 *       io.sluice.lease.LeasePolicy} (which may refuse a covered request by {@code admit}).
 *   <li>{@code LeaseGrantor}: the policy's {@link io.sluice.lease.LeaseGrants}: its grants become
 *       LEASE frames, from any thread.
 *   <li>{@code RequestStatsTap}: reports the peer's requests to {@link
 *       io.sluice.lease.RequestStats} (start, first response, end, rejected); the connection's
 *       receiver is null when no one listens.
 *   <li>{@code GracefulClose}: ERROR[CONNECTION_CLOSE], draining the live streams, the drain
 *       deadline (and a server's drain: a LEASE of 0 first).
 * </ul>
 *
 * <h2>One inbound message</h2>
 *
 * <ol>
 *   <li>The transport cuts a frame out of its read buffer (checking its length against {@code
 *       maxFrameSize}) and calls {@code SluiceConnection.onFrame}, which hands it to {@code
 *       InboundFrames.onFrame}.
 *   <li>{@code InboundFrames} validates it, notes the peer was heard ({@code KeepAlive}), finds the
 *       stream in the {@code StreamTable}, checks the credit it granted, and calls {@code
 *       StreamState.notifyNext} with a retained slice of the read buffer: no copy.
 *   <li>The listener (an API flavor's subscriber) owns the message and releases it. Its demand
 *       comes back as {@code StreamHandle.request(n)}; {@code StreamState} batches it into one
 *       REQUEST_N through the {@code FrameWriter}.
 *   <li>At the end of the read batch, {@code onReadComplete} flushes what the batch made us write.
 * </ol>
 *
 * <h2>One outbound message</h2>
 *
 * <ol>
 *   <li>The producer calls {@code StreamHandle.next(message)}: on the loop it runs at once; from
 *       another thread it is queued in the {@code CommandQueue} and runs with the next drain.
 *   <li>{@code StreamState} spends one unit of the peer's credit (a producer is only asked for
 *       what the peer granted, and only while the transport is writable: otherwise it waits in
 *       the {@code StreamTable}'s list until {@code Writability} pumps it).
 *   <li>{@code FrameWriter.sendPayload} encodes the frame header into the current batch buffer and
 *       copies a small payload behind it (a large one goes as its own buffer; one above the MTU as
 *       fragments), then releases the message.
 *   <li>The batch is flushed once per read batch or loop turn (or part-way through a long read
 *       batch): many frames per write and syscall.
 * </ol>
 */
package io.sluice.internal;
