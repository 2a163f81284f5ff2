package io.sluice;

/**
 * Accepts (or rejects) a connection on the server: called once per connection on its event loop,
 * after a valid SETUP. Throw {@link io.sluice.exceptions.RejectedSetupException} (or {@link
 * io.sluice.exceptions.UnsupportedSetupException}) to refuse the client; any other exception
 * refuses it with REJECTED_SETUP and the exception's message.
 *
 * <p><b>Buffers.</b> The {@link SetupInfo} and its payload stay the core's: valid only during the
 * call, retained by the acceptor if it keeps them.
 */
@FunctionalInterface
public interface Acceptor {
  /**
   * @param setup what the client declared
   * @param requester for calling the client back (symmetric RSocket)
   * @return the responder for the client's requests
   */
  Responder accept(SetupInfo setup, Requester requester);
}
