// SVG plots: a fixed plot area inside margins; data coordinates are mapped linearly from
// [0, axis max] where the axis max is the largest "nice" tick (1, 2 or 5 times a power of ten)
// at or above the data maximum. Every mark carries a <title> so hovering shows its value.
#include "reports/svg_plot.h"

#include <algorithm>
#include <cmath>

#include "reports/text_format.h"

namespace ctte::reports {
namespace {

constexpr double kLeft = 150, kRight = 20, kTop = 34, kBottom = 46;

std::string Num(double v) { return Fixed(v, 1); }

std::string Label(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e12) return Fixed(v, 0);
  return std::fabs(v) >= 1 ? Fixed(v, 2) : Fixed(v, 3);
}

std::string Open(const std::string& id, const std::string& title, double w, double h) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" id=\"" + XmlEscape(id) +
         "\" width=\"" + Num(w) + "\" height=\"" + Num(h) + "\" viewBox=\"0 0 " + Num(w) + " " +
         Num(h) + "\" role=\"img\"><title>" + XmlEscape(title) + "</title>" +
         "<text class=\"plot-title\" x=\"" + Num(w / 2) + "\" y=\"18\" text-anchor=\"middle\">" +
         XmlEscape(title) + "</text>";
}

std::string Text(double x, double y, const std::string& s, const char* anchor,
                 const char* cls = "tick") {
  return "<text class=\"" + std::string(cls) + "\" x=\"" + Num(x) + "\" y=\"" + Num(y) +
         "\" text-anchor=\"" + anchor + "\">" + XmlEscape(s) + "</text>";
}

std::string Line(double x1, double y1, double x2, double y2, const char* cls) {
  return "<line class=\"" + std::string(cls) + "\" x1=\"" + Num(x1) + "\" y1=\"" + Num(y1) +
         "\" x2=\"" + Num(x2) + "\" y2=\"" + Num(y2) + "\"/>";
}

std::string NoData(double w, double h) {
  return Text(w / 2, h / 2, "no data", "middle", "nodata") + "</svg>";
}

double AxisMax(const std::vector<double>& ticks) { return ticks.empty() ? 1 : ticks.back(); }

// Vertical value axis on the left with horizontal grid lines.
std::string YAxis(const std::vector<double>& ticks, double w, double h, const std::string& label) {
  std::string s;
  const double ymax = AxisMax(ticks);
  for (double t : ticks) {
    double y = h - kBottom - (h - kTop - kBottom) * t / ymax;
    s += Line(kLeft, y, w - kRight, y, "grid");
    s += Text(kLeft - 6, y + 4, Label(t), "end");
  }
  s += Line(kLeft, kTop, kLeft, h - kBottom, "axis");
  s += "<text class=\"axis-label\" transform=\"translate(16," + Num((h - kBottom + kTop) / 2) +
       ") rotate(-90)\" text-anchor=\"middle\">" + XmlEscape(label) + "</text>";
  return s;
}

}  // namespace

std::vector<double> NiceTicks(double max, int count) {
  if (!(max > 0) || !std::isfinite(max)) max = 1;
  const double raw = max / std::max(count, 1);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  }
  std::vector<double> ticks;
  for (int i = 0; ticks.empty() || ticks.back() < max - 1e-12; ++i) ticks.push_back(i * step);
  return ticks;
}

std::string StackedBars(const std::string& id, const std::string& title,
                        const std::vector<Series>& series, const std::vector<BarRow>& rows) {
  const double row_h = 18, w = 620;
  const double h = kTop + kBottom + row_h * static_cast<double>(std::max<size_t>(rows.size(), 2));
  std::string s = Open(id, title, w, h);
  if (rows.empty()) return s + NoData(w, h);
  uint64_t max = 0;
  for (const BarRow& r : rows) {
    uint64_t sum = 0;
    for (uint64_t v : r.segments) sum += v;
    max = std::max(max, sum);
  }
  const std::vector<double> ticks = NiceTicks(static_cast<double>(max), 5);
  const double xmax = AxisMax(ticks), plot_w = w - kLeft - kRight;
  for (double t : ticks) {
    double x = kLeft + plot_w * t / xmax;
    s += Line(x, kTop, x, h - kBottom, "grid");
    s += Text(x, h - kBottom + 14, Label(t), "middle");
  }
  s += Text(kLeft + plot_w / 2, h - 8, "runs", "middle", "axis-label");
  for (size_t i = 0; i < rows.size(); ++i) {
    const double y = kTop + row_h * static_cast<double>(i);
    s += Text(kLeft - 6, y + row_h * 0.7, rows[i].label, "end");
    double x = kLeft;
    for (size_t k = 0; k < rows[i].segments.size() && k < series.size(); ++k) {
      const uint64_t v = rows[i].segments[k];
      if (v == 0) continue;
      const double bw = plot_w * static_cast<double>(v) / xmax;
      s += "<rect class=\"bar " + XmlEscape(series[k].css_class) + "\" x=\"" + Num(x) +
           "\" y=\"" + Num(y + 2) + "\" width=\"" + Num(bw) + "\" height=\"" + Num(row_h - 4) +
           "\"><title>" + XmlEscape(rows[i].label + ": " + std::to_string(v) + " " +
                                    series[k].name) +
           "</title></rect>";
      x += bw;
    }
  }
  s += Line(kLeft, kTop, kLeft, h - kBottom, "axis");
  // Legend along the top right.
  double lx = w - kRight - 90.0 * static_cast<double>(series.size());
  for (const Series& se : series) {
    s += "<rect class=\"bar " + XmlEscape(se.css_class) + "\" x=\"" + Num(lx) +
         "\" y=\"24\" width=\"10\" height=\"10\"/>" + Text(lx + 14, 33, se.name, "start");
    lx += 90;
  }
  return s + "</svg>";
}

std::string StripPlot(const std::string& id, const std::string& title, const std::string& y_label,
                      const std::vector<StripColumn>& columns) {
  const double w = 620, h = 300;
  std::string s = Open(id, title, w, h);
  double max = 0;
  size_t n = 0;
  for (const StripColumn& c : columns) {
    for (const Point& p : c.points) max = std::max(max, p.y), ++n;
  }
  if (n == 0) return s + NoData(w, h);
  const std::vector<double> ticks = NiceTicks(max, 5);
  const double ymax = AxisMax(ticks), plot_w = w - kLeft - kRight, plot_h = h - kTop - kBottom;
  s += YAxis(ticks, w, h, y_label);
  const double col_w = plot_w / static_cast<double>(columns.size());
  for (size_t i = 0; i < columns.size(); ++i) {
    const double cx = kLeft + col_w * (static_cast<double>(i) + 0.5);
    s += Text(cx, h - kBottom + 14, columns[i].label, "middle");
    double sum = 0;
    const auto& pts = columns[i].points;
    for (size_t k = 0; k < pts.size(); ++k) {
      // Spread the dots of one column a little so equal values stay visible.
      const double jitter = (static_cast<double>(k % 7) - 3.0) * std::min(col_w / 10.0, 5.0);
      const double y = h - kBottom - plot_h * pts[k].y / ymax;
      s += "<circle class=\"dot " + XmlEscape(pts[k].css_class) + "\" cx=\"" + Num(cx + jitter) +
           "\" cy=\"" + Num(y) + "\" r=\"3.5\"><title>" + XmlEscape(pts[k].tip) +
           "</title></circle>";
      sum += pts[k].y;
    }
    if (!pts.empty()) {
      const double mean = sum / static_cast<double>(pts.size());
      const double y = h - kBottom - plot_h * mean / ymax;
      s += "<line class=\"mean\" x1=\"" + Num(cx - col_w * 0.3) + "\" y1=\"" + Num(y) +
           "\" x2=\"" + Num(cx + col_w * 0.3) + "\" y2=\"" + Num(y) + "\"><title>" +
           XmlEscape(columns[i].label + " mean " + Fixed(mean, 3)) + "</title></line>";
    }
  }
  return s + "</svg>";
}

std::string ScatterPlot(const std::string& id, const std::string& title,
                        const std::string& x_label, const std::string& y_label,
                        const std::vector<Point>& points) {
  const double w = 620, h = 300;
  std::string s = Open(id, title, w, h);
  if (points.empty()) return s + NoData(w, h);
  double xm = 0, ym = 0;
  for (const Point& p : points) xm = std::max(xm, p.x), ym = std::max(ym, p.y);
  const std::vector<double> xt = NiceTicks(xm, 6), yt = NiceTicks(ym, 5);
  const double plot_w = w - kLeft - kRight, plot_h = h - kTop - kBottom;
  s += YAxis(yt, w, h, y_label);
  for (double t : xt) {
    const double x = kLeft + plot_w * t / AxisMax(xt);
    s += Line(x, h - kBottom, x, h - kBottom + 4, "axis");
    s += Text(x, h - kBottom + 14, Label(t), "middle");
  }
  s += Line(kLeft, h - kBottom, w - kRight, h - kBottom, "axis");
  s += Text(kLeft + plot_w / 2, h - 8, x_label, "middle", "axis-label");
  for (const Point& p : points) {
    s += "<circle class=\"dot " + XmlEscape(p.css_class) + "\" cx=\"" +
         Num(kLeft + plot_w * p.x / AxisMax(xt)) + "\" cy=\"" +
         Num(h - kBottom - plot_h * p.y / AxisMax(yt)) + "\" r=\"3.5\"><title>" +
         XmlEscape(p.tip) + "</title></circle>";
  }
  return s + "</svg>";
}

std::string Log2Histogram(const std::string& id, const std::string& title,
                          const std::string& x_label, const std::vector<uint64_t>& counts) {
  const double w = 620, h = 260;
  std::string s = Open(id, title, w, h);
  size_t nbins = counts.size();
  while (nbins > 0 && counts[nbins - 1] == 0) --nbins;
  if (nbins == 0) return s + NoData(w, h);
  const uint64_t cmax = *std::max_element(counts.begin(), counts.begin() + nbins);
  const std::vector<double> yt = NiceTicks(static_cast<double>(cmax), 4);
  const double plot_w = w - kLeft - kRight, plot_h = h - kTop - kBottom;
  s += YAxis(yt, w, h, "episodes");
  const double bw = plot_w / static_cast<double>(nbins);
  for (size_t b = 0; b < nbins; ++b) {
    // Bucket b: values of bit length b, [2^(b-1), 2^b - 1]; bucket 0 is the value 0.
    const uint64_t lo = b == 0 ? 0 : uint64_t{1} << (b - 1);
    const uint64_t hi = b == 0 ? 0 : b >= 64 ? UINT64_MAX : (uint64_t{1} << b) - 1;
    const std::string range = lo == hi ? std::to_string(lo)
                                       : std::to_string(lo) + "-" + std::to_string(hi);
    const double bh = plot_h * static_cast<double>(counts[b]) / AxisMax(yt);
    const double x = kLeft + bw * static_cast<double>(b);
    s += "<rect class=\"bar hist\" x=\"" + Num(x + 1) + "\" y=\"" + Num(h - kBottom - bh) +
         "\" width=\"" + Num(bw - 2) + "\" height=\"" + Num(bh) + "\"><title>" +
         XmlEscape(range + ": " + std::to_string(counts[b])) + "</title></rect>";
    if (nbins <= 16 || b % 2 == 0) {
      s += Text(x + bw / 2, h - kBottom + 14, b == 0 ? "0" : std::to_string(lo), "middle");
    }
  }
  s += Line(kLeft, h - kBottom, w - kRight, h - kBottom, "axis");
  s += Text(kLeft + plot_w / 2, h - 8, x_label, "middle", "axis-label");
  return s + "</svg>";
}

}  // namespace ctte::reports
