#include "tools/fix.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace tpf::tools {

namespace {

bool overlaps(const Edit& a, const Edit& b) {
  if (a.span.begin == b.span.begin) return true;  // two edits at one point: order unknown
  auto inside = [](uint32_t p, const Span& s) { return s.begin < p && p < s.end; };
  if (a.span.begin == a.span.end) return inside(a.span.begin, b.span);
  if (b.span.begin == b.span.end) return inside(b.span.begin, a.span);
  return a.span.begin < b.span.end && b.span.begin < a.span.end;
}

/// Lines with their endings ("\n", "\r\n", "\r"); the last may have none.
std::vector<std::string_view> split_lines(std::string_view s) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\n' || (s[i] == '\r' && (i + 1 == s.size() || s[i + 1] != '\n'))) {
      out.push_back(s.substr(start, i + 1 - start));
      start = i + 1;
    }
  }
  if (start < s.size()) out.push_back(s.substr(start));
  return out;
}

/// One changed run: old lines [old_first, old_first + old.size()) become `now`.
struct Change {
  size_t old_first = 0;
  std::vector<std::string_view> old, now;
};

void put_line(std::string& out, char tag, std::string_view line) {
  out += tag;
  out += line;
  if (line.empty() || (line.back() != '\n' && line.back() != '\r'))
    out += "\n\\ No newline at end of file\n";
}

}  // namespace

std::string apply_edits(std::string_view text, std::span<const Edit> sorted) {
  std::string out;
  out.reserve(text.size() + 64);
  uint32_t at = 0;
  for (const Edit& e : sorted) {
    out.append(text.substr(at, e.span.begin - at));
    out += e.text;
    at = e.span.end;
  }
  out.append(text.substr(at));
  return out;
}

std::optional<std::string_view> edit_prefix(const SourceFile& src) {
  std::string_view bytes = src.bytes;
  if (src.text.data() == src.bytes.data() && src.text.size() == src.bytes.size()) return bytes.substr(0, 0);
  if (bytes.size() == src.text.size() + 3 && bytes.starts_with("\xEF\xBB\xBF") && bytes.substr(3) == src.text)
    return bytes.substr(0, 3);
  return std::nullopt;
}

FixResult apply_fixes(std::string_view text, std::span<const Diagnostic> diags,
                      const std::vector<bool>& take) {
  std::vector<size_t> order;
  for (size_t i = 0; i < diags.size(); ++i)
    if (diags[i].fix && !diags[i].fix->edits.empty() && (take.empty() || (i < take.size() && take[i])))
      order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return diags[a].fix->edits.front().span.begin < diags[b].fix->edits.front().span.begin;
  });
  FixResult r;
  std::vector<const Fix*> accepted;
  for (size_t i : order) {
    const Fix& f = *diags[i].fix;
    bool valid = true;
    for (const Edit& e : f.edits)
      valid &= e.span.begin <= e.span.end && e.span.end <= text.size();
    if (!valid) continue;
    bool same = false, clash = false;
    for (const Fix* a : accepted) {
      if (a->edits == f.edits) {
        same = true;
        break;
      }
      for (const Edit& x : a->edits)
        for (const Edit& y : f.edits) clash |= overlaps(x, y);
    }
    if (same) {
      r.applied.push_back(i);
      continue;
    }
    if (clash) continue;
    accepted.push_back(&f);
    r.applied.push_back(i);
    r.edits.insert(r.edits.end(), f.edits.begin(), f.edits.end());
  }
  std::sort(r.edits.begin(), r.edits.end(),
            [](const Edit& a, const Edit& b) { return a.span.begin < b.span.begin; });
  std::sort(r.applied.begin(), r.applied.end());
  r.text = apply_edits(text, r.edits);
  return r;
}

std::string unified_diff(std::string_view path, std::string_view before,
                         std::span<const Edit> edits) {
  if (edits.empty()) return "";
  std::vector<std::string_view> lines = split_lines(before);
  std::vector<uint32_t> starts;  // offset of each line, plus the end
  {
    uint32_t off = 0;
    for (std::string_view l : lines) {
      starts.push_back(off);
      off += static_cast<uint32_t>(l.size());
    }
    starts.push_back(off);
  }
  auto line_of = [&](uint32_t offset) {
    // The line holding `offset`; an offset at the very end belongs to the
    // last line unless that line is complete (then to a virtual line after).
    size_t l = static_cast<size_t>(std::upper_bound(starts.begin(), starts.end(), offset) -
                                   starts.begin()) - 1;
    if (l >= lines.size() && !lines.empty()) {
      char c = lines.back().back();
      return c == '\n' || c == '\r' ? lines.size() : lines.size() - 1;
    }
    return std::min(l, lines.size());
  };
  // Group the edits into runs of whole lines.
  std::vector<std::string> new_texts;
  std::vector<Change> changes;
  new_texts.reserve(edits.size());
  for (size_t i = 0; i < edits.size();) {
    size_t first = line_of(edits[i].span.begin);
    size_t last = line_of(std::max(edits[i].span.end, edits[i].span.begin + 1) - 1);
    size_t j = i + 1;
    while (j < edits.size() && line_of(edits[j].span.begin) <= last) {
      last = std::max(last, line_of(std::max(edits[j].span.end, edits[j].span.begin + 1) - 1));
      ++j;
    }
    last = std::min(last + 1, lines.size());  // exclusive
    first = std::min(first, last);
    uint32_t lo = starts[first], hi = starts[last];
    std::string text;
    uint32_t at = lo;
    for (size_t k = i; k < j; ++k) {
      text.append(before.substr(at, edits[k].span.begin - at));
      text += edits[k].text;
      at = edits[k].span.end;
    }
    text.append(before.substr(at, hi - at));
    new_texts.push_back(std::move(text));
    Change c;
    c.old_first = first;
    c.old.assign(lines.begin() + static_cast<ptrdiff_t>(first), lines.begin() + static_cast<ptrdiff_t>(last));
    c.now = split_lines(new_texts.back());
    // Drop the lines the edit left as they were.
    while (!c.old.empty() && !c.now.empty() && c.old.front() == c.now.front()) {
      c.old.erase(c.old.begin());
      c.now.erase(c.now.begin());
      ++c.old_first;
    }
    while (!c.old.empty() && !c.now.empty() && c.old.back() == c.now.back()) {
      c.old.pop_back();
      c.now.pop_back();
    }
    if (!c.old.empty() || !c.now.empty()) changes.push_back(std::move(c));
    i = j;
  }
  if (changes.empty()) return "";
  constexpr size_t kContext = 3;
  std::string out = "--- " + std::string(path) + "\n+++ " + std::string(path) + "\n";
  long delta = 0;  // new line number minus old line number before the current hunk
  for (size_t h = 0; h < changes.size();) {
    size_t e = h + 1;
    while (e < changes.size() &&
           changes[e].old_first <= changes[e - 1].old_first + changes[e - 1].old.size() + 2 * kContext)
      ++e;
    size_t from = changes[h].old_first >= kContext ? changes[h].old_first - kContext : 0;
    size_t end_old = changes[e - 1].old_first + changes[e - 1].old.size();
    size_t to = std::min(lines.size(), end_old + kContext);
    std::string body;
    size_t old_count = 0, new_count = 0;
    size_t at = from;
    long hunk_delta = 0;
    for (size_t k = h; k < e; ++k) {
      for (; at < changes[k].old_first; ++at, ++old_count, ++new_count) put_line(body, ' ', lines[at]);
      for (std::string_view l : changes[k].old) put_line(body, '-', l), ++old_count;
      for (std::string_view l : changes[k].now) put_line(body, '+', l), ++new_count;
      at += changes[k].old.size();
      hunk_delta += static_cast<long>(changes[k].now.size()) - static_cast<long>(changes[k].old.size());
    }
    for (; at < to; ++at, ++old_count, ++new_count) put_line(body, ' ', lines[at]);
    // Unified diff numbering: a range of 0 lines names the line before it.
    size_t old_start = old_count ? from + 1 : from;
    long new_from = static_cast<long>(from) + delta;
    long new_start = new_count ? new_from + 1 : new_from;
    out += "@@ -" + std::to_string(old_start) + "," + std::to_string(old_count) + " +" +
           std::to_string(new_start) + "," + std::to_string(new_count) + " @@\n";
    out += body;
    delta += hunk_delta;
    h = e;
  }
  return out;
}

std::string replace_file(const std::string& path, std::string_view bytes) {
  auto sys_error = [](std::string_view what) {
    return std::string(what) + ": " + std::strerror(errno);
  };
  std::error_code ec;
  const std::filesystem::path target = std::filesystem::canonical(path, ec);
  if (ec) return "cannot resolve the path: " + ec.message();
  struct stat st{};
  if (::stat(target.c_str(), &st) != 0) return sys_error("cannot read its status");
  if (!S_ISREG(st.st_mode)) return "not a regular file";
  if (st.st_nlink > 1)
    return "it has " + std::to_string(st.st_nlink) +
           " hard links, and replacing it would leave the other names with the old text";
  std::string tmp = (target.parent_path() / ("." + target.filename().string() + ".tpf-XXXXXX"))
                        .string();
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) return sys_error("cannot create a file beside it");
  std::string err;
  for (size_t done = 0; err.empty() && done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) err = sys_error("cannot write");
    else done += static_cast<size_t>(n);
  }
  if (err.empty() && ::fchmod(fd, st.st_mode & 07777) != 0) err = sys_error("cannot keep its mode");
  // Only root can give a file away; anyone may keep their own.
  if (err.empty() && (st.st_uid != ::geteuid() || st.st_gid != ::getegid()) &&
      ::fchown(fd, st.st_uid, st.st_gid) != 0)
    err = sys_error("cannot keep its owner");
  if (err.empty() && ::fsync(fd) != 0) err = sys_error("cannot sync");
  if (::close(fd) != 0 && err.empty()) err = sys_error("cannot write");
  if (err.empty() && ::rename(tmp.c_str(), target.c_str()) != 0) err = sys_error("cannot rename");
  if (!err.empty()) {
    ::unlink(tmp.c_str());
    return err;
  }
  // The rename itself is durable once the folder is synced.
  const int dir = ::open(target.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  return "";
}

}  // namespace tpf::tools
