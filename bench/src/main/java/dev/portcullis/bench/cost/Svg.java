package dev.portcullis.bench.cost;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Plain SVG charts: horizontal boxplots and bar charts, with their own axes. */
final class Svg {
  private static final int LABEL = 210;
  private static final int WIDTH = 860;
  private static final int ROW = 26;

  private Svg() {}

  /** One horizontal boxplot per cell, on a shared axis (logarithmic if values span 30x). */
  static String boxplots(List<Cell> cells, String unit) {
    double lo = Double.MAX_VALUE;
    double hi = 0;
    for (Cell c : cells) {
      for (double v : c.trials()) {
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
    }
    Axis x = new Axis(lo, hi, LABEL, WIDTH - 20);
    int height = cells.size() * ROW + 56;
    StringBuilder s = header(height);
    int y = 10;
    for (Cell c : cells) {
      Stats st = c.stats();
      double[] t = c.trials();
      int mid = y + ROW / 2;
      s.append(text(LABEL - 8, mid + 4, "end", c.layer() + (st.wide() ? " (!)" : "")));
      double wl = st.lowerWhisker(t);
      double wh = st.upperWhisker(t);
      s.append(line(x.at(wl), mid, x.at(st.q1()), mid))
          .append(line(x.at(st.q3()), mid, x.at(wh), mid))
          .append(line(x.at(wl), mid - 5, x.at(wl), mid + 5))
          .append(line(x.at(wh), mid - 5, x.at(wh), mid + 5));
      s.append(
          fmt(
              "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#9cc3e6\""
                  + " stroke=\"#246\"/>",
              x.at(st.q1()), mid - 8, Math.max(1, x.at(st.q3()) - x.at(st.q1())), 16));
      s.append(
          fmt(
              "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#123\""
                  + " stroke-width=\"2\"/>",
              x.at(st.median()), mid - 8, x.at(st.median()), mid + 8));
      // the median's 95 % confidence interval: an error bar under the box
      s.append(
          fmt(
              "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#d60\""
                  + " stroke-width=\"3\"/>",
              x.at(st.medianLow()), mid + 10, x.at(st.medianHigh()), mid + 10));
      for (double v : t) {
        if (v < wl || v > wh) {
          s.append(fmt("<circle cx=\"%.1f\" cy=\"%d\" r=\"2\" fill=\"#a33\"/>", x.at(v), mid));
        }
      }
      y += ROW;
    }
    s.append(x.ticks(y + 4, unit));
    return s.append("</svg>").toString();
  }

  /** Horizontal bars with error whiskers. */
  static String bars(List<JmhResults.Bar> bars) {
    double hi = 0;
    for (JmhResults.Bar b : bars) {
      hi = Math.max(hi, b.score() + b.error());
    }
    Axis x = new Axis(0, hi, LABEL, WIDTH - 20);
    int height = bars.size() * ROW + 56;
    StringBuilder s = header(height);
    int y = 10;
    for (JmhResults.Bar b : bars) {
      int mid = y + ROW / 2;
      s.append(text(LABEL - 8, mid + 4, "end", b.provider()));
      s.append(
          fmt(
              "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"14\" fill=\"#9cc3e6\""
                  + " stroke=\"#246\"/>",
              LABEL, mid - 7, Math.max(1, x.at(b.score()) - LABEL)));
      s.append(line(x.at(b.score() - b.error()), mid, x.at(b.score() + b.error()), mid));
      s.append(text(x.at(b.score()) + 4, mid - 8, "start", fmt("%.0f", b.score())));
      y += ROW;
    }
    s.append(x.ticks(y + 4, bars.isEmpty() ? "" : bars.get(0).unit()));
    return s.append("</svg>").toString();
  }

  private static StringBuilder header(int height) {
    return new StringBuilder(
        fmt(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " font-family=\"sans-serif\" font-size=\"12\">",
            WIDTH, height));
  }

  private static String line(double x1, int y1, double x2, int y2) {
    return fmt(
        "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#246\"/>", x1, y1, x2, y2);
  }

  private static String text(double x, int y, String anchor, String s) {
    return fmt(
        "<text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">%s</text>", x, y, anchor, Report.esc(s));
  }

  static String fmt(String f, Object... a) {
    return String.format(Locale.ROOT, f, a);
  }

  /** A value-to-pixel mapping, linear or logarithmic. */
  static final class Axis {
    final double lo;
    final double hi;
    final int from;
    final int to;
    final boolean log;

    Axis(double lo, double hi, int from, int to) {
      this.log = lo > 0 && hi / lo > 30;
      this.lo = log ? lo / 1.2 : 0;
      this.hi = hi <= this.lo ? this.lo + 1 : hi * (log ? 1.2 : 1.05);
      this.from = from;
      this.to = to;
    }

    double at(double v) {
      double f =
          log ? (Math.log(v) - Math.log(lo)) / (Math.log(hi) - Math.log(lo)) : (v - lo) / (hi - lo);
      return from + Math.max(0, Math.min(1, f)) * (to - from);
    }

    String ticks(int y, String unit) {
      StringBuilder s = new StringBuilder(line(from, y, to, y));
      double[] values;
      if (log) {
        List<Double> v = new ArrayList<>();
        for (double d = Math.pow(10, Math.floor(Math.log10(lo))); d <= hi; d *= 10) {
          for (double m : new double[] {1, 2, 5}) {
            if (d * m >= lo && d * m <= hi) {
              v.add(d * m);
            }
          }
        }
        values = v.stream().mapToDouble(Double::doubleValue).toArray();
      } else {
        double step = Math.pow(10, Math.floor(Math.log10((hi - lo) / 5)));
        if ((hi - lo) / step > 10) {
          step *= 2;
        }
        int n = (int) Math.floor((hi - lo) / step) + 1;
        values = new double[n];
        for (int i = 0; i < n; i++) {
          values[i] = lo + i * step;
        }
      }
      for (double v : values) {
        s.append(line(at(v), y, at(v), y + 4));
        s.append(text(at(v), y + 16, "middle", v >= 100 ? fmt("%.0f", v) : fmt("%.3g", v)));
      }
      s.append(text(to, y + 30, "end", unit + (log ? " (log scale)" : "")));
      return s.toString();
    }
  }
}
