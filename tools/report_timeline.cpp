// --timeline: the simulated step (memory/sim/timeline.cpp) as text, one row per
// op with its allocated and reserved bytes and an ASCII plot of the
// allocated ones, or as a Chrome trace (two counter series, allocated and
// reserved, which chrome://tracing and Perfetto open).
// requires: an Estimate with its timeline. produces: text or a JSON trace.
#include <algorithm>
#include <cstdio>
#include <fstream>

#include "tools/report_memory.h"

namespace tpf::tools {
namespace {

/// Rows printed at most: longer timelines are thinned evenly, and the
/// peak's row is always among them.
constexpr size_t kMaxRows = 200;
constexpr int kPlotWidth = 40;

std::string mib(uint64_t b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", static_cast<double>(b) / (1024.0 * 1024.0));
  return buf;
}

}  // namespace

void render_timeline(std::ostream& os, const memory::Estimate& e) {
  const auto& pts = e.timeline;
  os << "\nmemory timeline: " << e.path << " (torch " << e.torch_version << ", allocated and reserved MiB)\n";
  if (pts.empty()) {
    os << "  no training step was simulated\n";
    return;
  }
  uint64_t top = 1;
  size_t peak = 0;
  for (size_t i = 0; i < pts.size(); ++i)
    if (pts[i].allocated > top) top = pts[i].allocated, peak = i;
  const size_t stride = (pts.size() + kMaxRows - 1) / kMaxRows;
  char row[160];
  std::snprintf(row, sizeof row, "  %5s  %-8s  %-34s %5s %9s %9s\n", "#", "phase", "op", "line", "MiB", "reserved");
  os << row;
  for (size_t i = 0; i < pts.size(); ++i) {
    if (i % stride && i != peak) continue;
    const memory::TimelinePoint& p = pts[i];
    int n = static_cast<int>(static_cast<double>(p.allocated) / static_cast<double>(top) * kPlotWidth);
    std::string op = p.op.size() > 34 ? p.op.substr(0, 31) + "..." : p.op;
    std::snprintf(row, sizeof row, "  %5zu  %-8s  %-34s %5s %9s %9s |", i, p.phase.c_str(), op.c_str(),
                  p.line ? std::to_string(p.line).c_str() : "", mib(p.allocated).c_str(), mib(p.reserved).c_str());
    os << row << std::string(static_cast<size_t>(n), '#') << (i == peak ? "  <- peak" : "") << "\n";
  }
}

bool write_timeline_trace(const std::string& file, const memory::Estimate& e, std::string& error) {
  // Chrome's trace event format: "C" (counter) events, one per point and
  // series (allocated: the live tensors; reserved: the caching allocator's
  // segments), with the point's index as its time in microseconds (the
  // simulation has no clock); an "i" (instant) event marks the peak.
  nlohmann::ordered_json events = nlohmann::ordered_json::array();
  uint64_t top = 0;
  size_t peak = 0;
  for (size_t i = 0; i < e.timeline.size(); ++i) {
    const memory::TimelinePoint& p = e.timeline[i];
    if (p.allocated > top) top = p.allocated, peak = i;
    events.push_back({{"name", "allocated"}, {"ph", "C"}, {"ts", i}, {"pid", 1}, {"tid", 1},
                      {"args", {{"bytes", p.allocated}}}});
    events.push_back({{"name", "reserved"}, {"ph", "C"}, {"ts", i}, {"pid", 1}, {"tid", 1},
                      {"args", {{"bytes", p.reserved}}}});
    events.push_back({{"name", p.phase + ": " + p.op}, {"ph", "X"}, {"ts", i}, {"dur", 1}, {"pid", 1}, {"tid", 1},
                      {"args", {{"line", p.line}, {"bytes", p.allocated}}}});
  }
  if (!e.timeline.empty())
    events.push_back({{"name", "peak"}, {"ph", "i"}, {"s", "g"}, {"ts", peak}, {"pid", 1}, {"tid", 1},
                      {"args", {{"op", e.timeline[peak].op}, {"line", e.timeline[peak].line}, {"bytes", top}}}});
  nlohmann::ordered_json trace = {{"traceEvents", std::move(events)},
                                  {"displayTimeUnit", "ms"},
                                  {"otherData", {{"script", e.path}, {"torch", e.torch_version},
                                                 {"allocated_peak_bytes", e.allocated_peak_bytes},
                                                 {"reserved_peak_bytes", e.reserved_peak_bytes}}}};
  std::ofstream out(file);
  if (!out) {
    error = "cannot write the timeline to " + file;
    return false;
  }
  out << trace.dump(1) << "\n";
  return static_cast<bool>(out);
}

}  // namespace tpf::tools
