package io.sluice.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.dns.DatagramDnsQuery;
import io.netty.handler.codec.dns.DatagramDnsQueryDecoder;
import io.netty.handler.codec.dns.DatagramDnsResponse;
import io.netty.handler.codec.dns.DatagramDnsResponseEncoder;
import io.netty.handler.codec.dns.DefaultDnsQuestion;
import io.netty.handler.codec.dns.DefaultDnsRawRecord;
import io.netty.handler.codec.dns.DnsQuestion;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.handler.codec.dns.DnsSection;
import io.netty.resolver.AddressResolverGroup;
import io.netty.resolver.dns.DnsAddressResolverGroup;
import io.netty.resolver.dns.SingletonDnsServerAddressStreamProvider;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.netty.internal.EventLoops;
import io.sluice.transport.netty.internal.Resolvers;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Host names of client connects are resolved by netty's asynchronous DNS resolver ({@link
 * Resolvers}), never by the JDK's blocking one on the event loop: while a name server takes its
 * time, the connecting channel's event loop runs its other work.
 */
class ResolversTest {
  private static final long WAIT = 30; // seconds; hang guard only

  @Test
  void theClientTransportsResolveWithNettysDnsResolver() {
    EventLoopGroup shared = EventLoops.shared(IoMode.NIO);
    assertThat(Resolvers.forGroup(shared)).isInstanceOf(DnsAddressResolverGroup.class);
    assertThat(Resolvers.forGroup(shared)).isSameAs(Resolvers.forGroup(shared));
  }

  @Test
  void theEventLoopRunsOtherWorkWhileANameServerTakesItsTime() throws Exception {
    EventLoopGroup loop = EventLoops.newGroup(1, "resolve-test", IoMode.NIO);
    EventLoopGroup dnsLoop = EventLoops.newGroup(1, "resolve-test-dns", IoMode.NIO);
    CountDownLatch asked = new CountDownLatch(1);
    CompletableFuture<Void> answer = new CompletableFuture<>();
    try (ServerSocket target = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
      Channel dns =
          new Bootstrap()
              .group(dnsLoop)
              .channel(NioDatagramChannel.class)
              .handler(
                  new ChannelInitializer<DatagramChannel>() {
                    @Override
                    protected void initChannel(DatagramChannel ch) {
                      ch.pipeline()
                          .addLast(new DatagramDnsQueryDecoder())
                          .addLast(new DatagramDnsResponseEncoder())
                          .addLast(new HeldAnswer(asked, answer));
                    }
                  })
              .bind("127.0.0.1", 0)
              .sync()
              .channel();
      try {
        AddressResolverGroup<InetSocketAddress> resolver =
            Resolvers.create(
                IoMode.NIO,
                new SingletonDnsServerAddressStreamProvider((InetSocketAddress) dns.localAddress()));
        CompletableFuture<DuplexTransport> connect =
            NettyClients.connect(
                loop,
                NioSocketChannel.class,
                InetSocketAddress.createUnresolved("slow.test", target.getLocalPort()),
                10_000,
                b -> {},
                null,
                resolver);
        assertThat(asked.await(WAIT, TimeUnit.SECONDS)).as("the name server was asked").isTrue();

        // The name server holds its answer: the loop is free meanwhile.
        CompletableFuture<Void> ran = new CompletableFuture<>();
        loop.next().execute(() -> ran.complete(null));
        ran.get(WAIT, TimeUnit.SECONDS);
        assertThat(connect).isNotDone();

        answer.complete(null); // now it answers 127.0.0.1, and the connect goes on
        DuplexTransport t = connect.get(WAIT, TimeUnit.SECONDS);
        t.close();
        resolver.close();
      } finally {
        answer.complete(null);
        dns.close().syncUninterruptibly();
      }
    } finally {
      loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
      dnsLoop.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  /** Answers every A question with 127.0.0.1 once the test completes {@code answer}. */
  private static final class HeldAnswer extends SimpleChannelInboundHandler<DatagramDnsQuery> {
    private final CountDownLatch asked;
    private final CompletableFuture<Void> answer;

    HeldAnswer(CountDownLatch asked, CompletableFuture<Void> answer) {
      this.asked = asked;
      this.answer = answer;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, DatagramDnsQuery query) {
      DnsQuestion q = query.recordAt(DnsSection.QUESTION);
      DatagramDnsResponse r = new DatagramDnsResponse(query.recipient(), query.sender(), query.id());
      r.addRecord(DnsSection.QUESTION, new DefaultDnsQuestion(q.name(), q.type()));
      if (q.type() == DnsRecordType.A) {
        r.addRecord(
            DnsSection.ANSWER,
            new DefaultDnsRawRecord(q.name(), DnsRecordType.A, 60, Unpooled.wrappedBuffer(new byte[] {127, 0, 0, 1})));
        asked.countDown();
        answer.whenComplete((v, e) -> ctx.writeAndFlush(r)); // from the test's thread: netty hands it over
      } else {
        ctx.writeAndFlush(r); // AAAA: none
      }
    }
  }
}
