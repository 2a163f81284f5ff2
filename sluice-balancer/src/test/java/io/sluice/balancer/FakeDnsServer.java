package io.sluice.balancer;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.dns.DefaultDnsResponse;
import io.netty.handler.codec.dns.DnsQuery;
import io.netty.handler.codec.dns.DnsResponse;
import io.netty.handler.codec.dns.TcpDnsQueryDecoder;
import io.netty.handler.codec.dns.TcpDnsResponseEncoder;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.dns.DatagramDnsQuery;
import io.netty.handler.codec.dns.DatagramDnsQueryDecoder;
import io.netty.handler.codec.dns.DatagramDnsResponse;
import io.netty.handler.codec.dns.DatagramDnsResponseEncoder;
import io.netty.handler.codec.dns.DefaultDnsQuestion;
import io.netty.handler.codec.dns.DefaultDnsRawRecord;
import io.netty.handler.codec.dns.DnsQuestion;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.handler.codec.dns.DnsResponseCode;
import io.netty.handler.codec.dns.DnsSection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A DNS server on 127.0.0.1 for tests, over UDP and TCP on the same port: answers A and SRV
 * questions from maps the test changes as it goes; a name it does not know gets NXDOMAIN, another
 * type an empty answer, a name in {@link #failing} SERVFAIL. Over UDP an answer that would not fit
 * in {@link #UDP_PAYLOAD} bytes is cut to the records that fit and marked truncated (TC), as a real
 * server does; over TCP it is whole. Counts the queries it gets, by transport and name.
 */
final class FakeDnsServer implements AutoCloseable {
  /** One SRV record. */
  record Srv(int priority, int port, String target) {}

  /** The largest UDP answer: the EDNS payload size netty's resolver asks for. */
  static final int UDP_PAYLOAD = 4096;

  final Map<String, List<String>> a = new ConcurrentHashMap<>();
  final Map<String, List<Srv>> srv = new ConcurrentHashMap<>();
  /** Names answered with SERVFAIL (a name server that cannot answer now). */
  final Set<String> failing = ConcurrentHashMap.newKeySet();
  /** Queries seen, by "udp name" and "tcp name". */
  final Map<String, AtomicInteger> queries = new ConcurrentHashMap<>();
  private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final Channel channel;
  private final Channel tcp;

  FakeDnsServer() throws InterruptedException {
    Channel udp = null;
    Channel stream = null;
    for (int attempt = 0; stream == null; attempt++) {
      udp =
          new Bootstrap()
              .group(group)
              .channel(NioDatagramChannel.class)
              .handler(
                  new ChannelInitializer<DatagramChannel>() {
                    @Override
                    protected void initChannel(DatagramChannel ch) {
                      ch.pipeline()
                          .addLast(new DatagramDnsQueryDecoder())
                          .addLast(new DatagramDnsResponseEncoder())
                          .addLast(new UdpAnswer());
                    }
                  })
              .bind("127.0.0.1", 0)
              .sync()
              .channel();
      int port = ((InetSocketAddress) udp.localAddress()).getPort();
      ChannelFuture bound =
          new ServerBootstrap()
              .group(group)
              .channel(NioServerSocketChannel.class)
              .childHandler(
                  new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                      ch.pipeline()
                          .addLast(new TcpDnsQueryDecoder())
                          .addLast(new TcpDnsResponseEncoder())
                          .addLast(new TcpAnswer());
                    }
                  })
              .bind("127.0.0.1", port)
              .await();
      if (bound.isSuccess()) {
        stream = bound.channel();
      } else {
        udp.close().syncUninterruptibly(); // that TCP port is taken: another pair
        if (attempt == 20) {
          throw new IllegalStateException("no port free for both UDP and TCP", bound.cause());
        }
      }
    }
    channel = udp;
    tcp = stream;
  }

  InetSocketAddress address() {
    return (InetSocketAddress) channel.localAddress();
  }

  /** Queries for {@code name} seen over {@code transport} ("udp" or "tcp"). */
  int queries(String transport, String name) {
    AtomicInteger n = queries.get(transport + " " + name);
    return n == null ? 0 : n.get();
  }

  @Override
  public void close() {
    channel.close().syncUninterruptibly();
    tcp.close().syncUninterruptibly();
    group.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
  }

  private static String key(String name) {
    return name.endsWith(".") ? name.substring(0, name.length() - 1) : name;
  }

  /**
   * Fills {@code r} with the answer to {@code q}; with {@code limit} > 0, only the records that fit
   * in that many bytes, and TC set if some did not.
   */
  private void answer(DnsQuestion q, DnsResponse r, String transport, int limit)
      throws java.net.UnknownHostException {
    r.setRecursionAvailable(true);
    r.addRecord(DnsSection.QUESTION, new DefaultDnsQuestion(q.name(), q.type()));
    String name = key(q.name());
    queries.computeIfAbsent(transport + " " + name, k -> new AtomicInteger()).incrementAndGet();
    if (failing.contains(name)) {
      r.setCode(DnsResponseCode.SERVFAIL);
      return;
    }
    List<String> ips = a.get(name);
    List<Srv> srvs = srv.get(name);
    List<DefaultDnsRawRecord> records = new java.util.ArrayList<>();
    if (ips == null && srvs == null) {
      r.setCode(DnsResponseCode.NXDOMAIN);
    } else if (q.type() == DnsRecordType.A && ips != null) {
      for (String ip : ips) {
        records.add(
            new DefaultDnsRawRecord(
                q.name(), DnsRecordType.A, 1, Unpooled.wrappedBuffer(InetAddress.getByName(ip).getAddress())));
      }
    } else if (q.type() == DnsRecordType.SRV && srvs != null) {
      for (Srv s : srvs) {
        ByteBuf c = Unpooled.buffer();
        c.writeShort(s.priority()).writeShort(10).writeShort(s.port());
        for (String label : key(s.target()).split("\\.")) {
          byte[] b = label.getBytes(StandardCharsets.US_ASCII);
          c.writeByte(b.length).writeBytes(b);
        }
        c.writeByte(0);
        records.add(new DefaultDnsRawRecord(q.name(), DnsRecordType.SRV, 1, c));
      }
    }
    // Header and question, then each record: its name (uncompressed), type, class, ttl, length, data.
    int size = 12 + q.name().length() + 2 + 4;
    for (DefaultDnsRawRecord record : records) {
      size += record.name().length() + 2 + 10 + record.content().readableBytes();
      if (limit > 0 && size > limit) {
        r.setTruncated(true);
        record.release();
        continue;
      }
      r.addRecord(DnsSection.ANSWER, record);
    }
  }

  private final class UdpAnswer extends SimpleChannelInboundHandler<DatagramDnsQuery> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, DatagramDnsQuery query)
        throws Exception {
      DatagramDnsResponse r =
          new DatagramDnsResponse(query.recipient(), query.sender(), query.id());
      answer(query.recordAt(DnsSection.QUESTION), r, "udp", UDP_PAYLOAD);
      ctx.writeAndFlush(r);
    }
  }

  private final class TcpAnswer extends SimpleChannelInboundHandler<DnsQuery> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, DnsQuery query) throws Exception {
      DefaultDnsResponse r = new DefaultDnsResponse(query.id());
      answer(query.recordAt(DnsSection.QUESTION), r, "tcp", 0);
      ctx.writeAndFlush(r);
    }
  }
}
