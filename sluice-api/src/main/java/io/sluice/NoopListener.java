package io.sluice;

/** A listener that releases whatever it receives. */
final class NoopListener implements StreamListener {
  static final NoopListener INSTANCE = new NoopListener();

  private NoopListener() {}

  @Override
  public void onNext(Message message) {
    message.release();
  }

  @Override
  public void onComplete() {}

  @Override
  public void onError(Throwable cause) {}
}
