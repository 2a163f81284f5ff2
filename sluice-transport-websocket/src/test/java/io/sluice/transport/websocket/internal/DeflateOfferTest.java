package io.sluice.transport.websocket.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Which permessage-deflate offers the server takes (RFC 7692 5.1 and 7.1): an offer with a
 * parameter it does not define, a value that is not valid, or the same parameter twice must be
 * declined, and so must a server window below the JDK's 32 KiB; the next offer may still be taken.
 */
class DeflateOfferTest {
  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "permessage-deflate | true",
        "PerMessage-Deflate | true",
        "permessage-deflate; client_max_window_bits | true",
        "permessage-deflate; client_max_window_bits=10 | true",
        "permessage-deflate; client_max_window_bits=\"12\" | true",
        "permessage-deflate; server_max_window_bits=15 | true",
        "permessage-deflate; client_no_context_takeover; server_no_context_takeover | true",
        "permessage-deflate; server_max_window_bits=10 | false",
        "permessage-deflate; server_max_window_bits=10, permessage-deflate | true",
        "x-webkit-deflate-frame | false",
        "permessage-deflate; foo | false",
        "permessage-deflate; server_max_window_bits | false",
        "permessage-deflate; client_max_window_bits=16 | false",
        "permessage-deflate; client_max_window_bits=7 | false",
        "permessage-deflate; client_max_window_bits=abc | false",
        "permessage-deflate; client_max_window_bits= | false",
        "permessage-deflate; client_no_context_takeover=1 | false",
        "permessage-deflate; client_no_context_takeover; client_no_context_takeover | false",
        "permessage-deflate; client_max_window_bits=9; client_max_window_bits=10 | false",
      })
  void offers(String offer, boolean taken) {
    assertThat(ServerUpgradeHandler.acceptsDeflate(List.of(offer))).isEqualTo(taken);
  }

  @ParameterizedTest(name = "{0} then {1}")
  @CsvSource(
      delimiter = '|',
      value = {"x-other | permessage-deflate", "permessage-deflate; foo | permessage-deflate"})
  void anOfferOnAnyLineOfTheField(String first, String second) {
    assertThat(ServerUpgradeHandler.acceptsDeflate(List.of(first, second))).isTrue();
  }
}
