package io.sluice.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

class HandlerFailuresTest {
  @Test
  void aClientThatMakesEveryCallFailCannotFloodTheLog() {
    // netty logs through java.util.logging here (no SLF4J or Log4j on this module's class path).
    Logger jul = Logger.getLogger(HandlerFailures.class.getName());
    List<LogRecord> records = new CopyOnWriteArrayList<>();
    Handler capture =
        new Handler() {
          @Override
          public void publish(LogRecord r) {
            records.add(r);
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    jul.addHandler(capture);
    boolean parent = jul.getUseParentHandlers();
    jul.setUseParentHandlers(false);
    try {
      for (int i = 0; i < 1_000; i++) {
        Status s = HandlerFailures.status(null, new IllegalStateException("boom " + i));
        assertThat(s.code()).isEqualTo(Status.Code.UNKNOWN);
      }
    } finally {
      jul.removeHandler(capture);
      jul.setUseParentHandlers(parent);
    }
    assertThat(records).isNotEmpty().hasSizeLessThanOrEqualTo(HandlerFailures.LOGGED_PER_WINDOW);
    assertThat(records.get(0).getThrown()).hasMessageStartingWith("boom ");
  }

  @Test
  void aStatusExceptionIsTheHandlersChoiceAndIsNotLogged() {
    Status s = HandlerFailures.status(null, new StatusException(Status.of(Status.Code.NOT_FOUND, "no such user")));
    assertThat(s.code()).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(s.description()).isEqualTo("no such user");
  }
}
