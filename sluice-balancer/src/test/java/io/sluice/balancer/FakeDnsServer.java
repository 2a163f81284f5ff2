package io.sluice.balancer;

import io.netty.bootstrap.Bootstrap;
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
 * A DNS server on 127.0.0.1 (UDP) for tests: answers A and SRV questions from maps the test
 * changes as it goes; a name it does not know gets NXDOMAIN, another type an empty answer.
 */
final class FakeDnsServer implements AutoCloseable {
  /** One SRV record. */
  record Srv(int priority, int port, String target) {}

  final Map<String, List<String>> a = new ConcurrentHashMap<>();
  final Map<String, List<Srv>> srv = new ConcurrentHashMap<>();
  private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final Channel channel;

  FakeDnsServer() throws InterruptedException {
    channel =
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
                        .addLast(new Answer());
                  }
                })
            .bind("127.0.0.1", 0)
            .sync()
            .channel();
  }

  InetSocketAddress address() {
    return (InetSocketAddress) channel.localAddress();
  }

  @Override
  public void close() {
    channel.close().syncUninterruptibly();
    group.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
  }

  private static String key(String name) {
    return name.endsWith(".") ? name.substring(0, name.length() - 1) : name;
  }

  private final class Answer extends SimpleChannelInboundHandler<DatagramDnsQuery> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, DatagramDnsQuery query)
        throws Exception {
      DnsQuestion q = query.recordAt(DnsSection.QUESTION);
      DatagramDnsResponse r =
          new DatagramDnsResponse(query.recipient(), query.sender(), query.id());
      r.setRecursionAvailable(true);
      r.addRecord(DnsSection.QUESTION, new DefaultDnsQuestion(q.name(), q.type()));
      String name = key(q.name());
      List<String> ips = a.get(name);
      List<Srv> srvs = srv.get(name);
      if (ips == null && srvs == null) {
        r.setCode(DnsResponseCode.NXDOMAIN);
      } else if (q.type() == DnsRecordType.A && ips != null) {
        for (String ip : ips) {
          r.addRecord(
              DnsSection.ANSWER,
              new DefaultDnsRawRecord(
                  q.name(),
                  DnsRecordType.A,
                  1,
                  Unpooled.wrappedBuffer(InetAddress.getByName(ip).getAddress())));
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
          r.addRecord(DnsSection.ANSWER, new DefaultDnsRawRecord(q.name(), DnsRecordType.SRV, 1, c));
        }
      }
      ctx.writeAndFlush(r);
    }
  }
}
