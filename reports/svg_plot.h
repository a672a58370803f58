// Inline SVG plots for the HTML report: stacked bars, strip plots, scatter plots and histograms.
// Each function returns one self-contained <svg> element (class "plot", the given id) with a
// <title>, axes with tick labels, and a <title> tooltip per mark. No scripts, no external
// resources; numbers are printed with fixed precision, so the output is deterministic.
// Empty data gives a plot that says "no data" rather than no plot.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ctte::reports {

struct BarRow {
  std::string label;
  std::vector<uint64_t> segments;  ///< one count per series
};
struct Series {
  std::string name;
  std::string css_class;  ///< fill comes from the page's stylesheet (e.g. "green", "red")
};
/// Horizontal stacked bars, one row per label.
std::string StackedBars(const std::string& id, const std::string& title,
                        const std::vector<Series>& series, const std::vector<BarRow>& rows);

struct Point {
  double x = 0, y = 0;
  std::string css_class;
  std::string tip;
};
struct StripColumn {
  std::string label;
  std::vector<Point> points;  ///< only y is used; x is the column
};
/// One column of dots per category, with the mean as a tick.
std::string StripPlot(const std::string& id, const std::string& title, const std::string& y_label,
                      const std::vector<StripColumn>& columns);
/// x/y scatter with linear axes from 0 to the data maximum.
std::string ScatterPlot(const std::string& id, const std::string& title,
                        const std::string& x_label, const std::string& y_label,
                        const std::vector<Point>& points);
/// A histogram already counted in log2 buckets: counts[k] values of bit length k (0; 1; 2-3;
/// 4-7; ...), one bar per bucket up to the last non-empty one, labelled by its lower bound.
std::string Log2Histogram(const std::string& id, const std::string& title,
                          const std::string& x_label, const std::vector<uint64_t>& counts);

/// Up to ~`count` round tick values covering [0, max] (1, 2 or 5 times a power of ten).
std::vector<double> NiceTicks(double max, int count);

}  // namespace ctte::reports
