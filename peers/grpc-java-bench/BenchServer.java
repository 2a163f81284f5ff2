import io.grpc.Server;
import io.grpc.benchmarks.qps.AsyncServer;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.concurrent.ThreadFactory;

/**
 * grpc-java's benchmark server as `io.grpc.benchmarks.qps.AsyncServer --directexecutor` sets it up
 * (its default NIO transport: one boss loop, netty's default number of worker loops; its
 * BenchmarkServiceImpl; its 1 MiB flow-control window; handlers on the transport threads), except that it listens on 127.0.0.1
 * only: AsyncServer binds every address of the host. Run from source on target/lib's class path
 * (`java -cp 'target/lib/*' BenchServer.java [port]`); prints `LISTENING <port>` once bound,
 * serves until its standard input closes or it is ended.
 */
public final class BenchServer {
  public static void main(String[] args) throws Exception {
    int port = args.length > 0 ? Integer.parseInt(args[0]) : 0;
    ThreadFactory tf = new DefaultThreadFactory("server-elg-", true);
    Server server =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", port))
            .bossEventLoopGroup(new NioEventLoopGroup(1, tf))
            .workerEventLoopGroup(new NioEventLoopGroup(0, tf))
            .channelType(NioServerSocketChannel.class)
            .addService(new AsyncServer.BenchmarkServiceImpl())
            .flowControlWindow(1 << 20) // AsyncServer's default (ServerConfiguration)
            .directExecutor()
            .build()
            .start();
    System.out.println("LISTENING " + server.getPort());
    System.out.flush();
    InputStream in = System.in;
    while (in.read() >= 0) {
      // serve until the parent closes our standard input
    }
    server.shutdownNow();
  }
}
