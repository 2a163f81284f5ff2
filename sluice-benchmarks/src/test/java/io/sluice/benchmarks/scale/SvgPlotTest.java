package io.sluice.benchmarks.scale;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

class SvgPlotTest {
  private static Document parse(String svg) throws Exception {
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setNamespaceAware(true);
    return f.newDocumentBuilder().parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void twoChartsOneLinePerSeries() throws Exception {
    List<SvgPlot.Series> series = List.of(
        new SvgPlot.Series("idle <0>", new double[] {1, 100, 10_000}, new double[] {10, 20, 80}),
        new SvgPlot.Series("10 & more", new double[] {1, 100}, new double[] {12, Double.NaN}));
    String svg = SvgPlot.document(List.of(
        SvgPlot.chart("a", "x", "y", series), SvgPlot.chart("b", "x", "y", series)));
    Document d = parse(svg); // well-formed, names escaped
    Element root = d.getDocumentElement();
    assertThat(root.getLocalName()).isEqualTo("svg");
    assertThat(root.getAttribute("width")).isEqualTo(String.valueOf(2 * SvgPlot.WIDTH));
    NodeList lines = d.getElementsByTagName("polyline");
    assertThat(lines.getLength()).isEqualTo(4);
    // NaN points are left out: the second series has one point per chart
    assertThat(((Element) lines.item(0)).getAttribute("points").split(" ")).hasSize(3);
    assertThat(((Element) lines.item(1)).getAttribute("points").split(" ")).hasSize(1);
    assertThat(svg).contains("idle &lt;0&gt;").contains("10 &amp; more");
    // x ticks at each power of ten from 1 to 10,000
    Map<String, Integer> texts = new TreeMap<>();
    NodeList t = d.getElementsByTagName("text");
    for (int i = 0; i < t.getLength(); i++) {
      texts.merge(t.item(i).getTextContent(), 1, Integer::sum);
    }
    assertThat(texts).containsKeys("1", "10", "100", "1,000", "10,000");
  }

  @Test
  void pointsStayInsideThePlot() throws Exception {
    String g = SvgPlot.chart("t", "x", "y",
        List.of(new SvgPlot.Series("s", new double[] {3, 7000}, new double[] {0, 123})));
    Document d = parse("<svg xmlns=\"http://www.w3.org/2000/svg\">" + g + "</svg>");
    String[] pts = ((Element) d.getElementsByTagName("polyline").item(0)).getAttribute("points").split(" ");
    for (String p : pts) {
      double x = Double.parseDouble(p.split(",")[0]);
      double y = Double.parseDouble(p.split(",")[1]);
      assertThat(x).isBetween(0.0, (double) SvgPlot.WIDTH);
      assertThat(y).isBetween(0.0, (double) SvgPlot.HEIGHT);
    }
  }

  @Test
  void niceCeilings() {
    assertThat(SvgPlot.niceCeiling(123)).isEqualTo(200);
    assertThat(SvgPlot.niceCeiling(80)).isEqualTo(100);
    assertThat(SvgPlot.niceCeiling(2.2)).isEqualTo(2.5);
    assertThat(SvgPlot.niceCeiling(0)).isEqualTo(1);
  }
}
