package io.sluice.test;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.sluice.Message;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class TestMessagesTest {
  @Test
  void unpooledUtf8RoundTripsAndReleases() {
    Message m = TestMessages.utf8("héllo");
    ByteBuf data = m.data();
    assertThat(m.hasMetadata()).isFalse();
    assertThat(TestMessages.dataAndRelease(m)).isEqualTo("héllo");
    assertThat(data.refCnt()).isZero();
  }

  @Test
  void pooledWithMetadata() {
    Message m = TestMessages.pooled("md", "data");
    assertThat(m.data().alloc()).isSameAs(PooledByteBufAllocator.DEFAULT);
    assertThat(TestMessages.textAndRelease(m)).isEqualTo(new TestMessages.Text("md", "data"));
    assertThat(m.refCnt()).isZero();
  }

  @Test
  void metadataAndRelease() {
    assertThat(TestMessages.metadataAndRelease(TestMessages.utf8("m", "d"))).isEqualTo("m");
    assertThat(TestMessages.metadataAndRelease(TestMessages.utf8(null, "d"))).isNull();
    assertThat(TestMessages.textAndRelease(TestMessages.pooled(null, "x")))
        .isEqualTo(new TestMessages.Text(null, "x"));
  }

  @Test
  void ofSizeAndReleaseAll() {
    Message a = TestMessages.ofSize(UnpooledByteBufAllocator.DEFAULT, 300);
    Message b = TestMessages.ofSize(PooledByteBufAllocator.DEFAULT, 0);
    assertThat(a.data().readableBytes()).isEqualTo(300);
    assertThat(a.data().getUnsignedByte(257)).isEqualTo((short) 1);
    b.retain().release();
    TestMessages.releaseAll(Arrays.asList(a, b, null));
    assertThat(a.refCnt()).isZero();
    assertThat(b.refCnt()).isZero();
    TestMessages.releaseAll(Arrays.asList(a, b)); // already released: no exception
  }

  @Test
  void utf8AndReleaseBuffer() {
    ByteBuf buf = UnpooledByteBufAllocator.DEFAULT.buffer().writeByte('a');
    assertThat(TestMessages.utf8AndRelease(buf)).isEqualTo("a");
    assertThat(buf.refCnt()).isZero();
  }
}
