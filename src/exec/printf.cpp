// Device printf: nvcc lowers printf to vprintf(format, argbuf) where argbuf
// is a local buffer holding each argument at its natural alignment (floats
// promoted to double, as in C varargs).
#include <fmt/format.h>

#include <cstdio>
#include <cstring>

#include "exec/warp.h"

namespace softgpu::exec {
namespace {

constexpr size_t kMaxFormat = 4096;
constexpr size_t kMaxString = 4096;

// A printf call's record in the FIFO (cudaLimitPrintfFifoSize, 1 MB by
// default): the driver's layout is not documented, so this models it as a
// 16-byte header (format string address and bookkeeping) plus one 8-byte slot
// per argument (arguments travel promoted: int padded, float as double).
// A record that does not fit is dropped with the rest of that launch's output.
constexpr uint64_t kPrintfRecordHeader = 16;
constexpr uint64_t kPrintfArgSlot = 8;

}  // namespace

// Reads a NUL-terminated string from device memory, one checked byte at a time.
bool Warp::read_cstring(uint64_t addr, size_t limit, uint32_t lane, std::string& out) {
  for (size_t i = 0; i < limit; ++i) {
    std::byte* p = translate(ptx::Space::Generic, addr + i, 1, lane, false);
    if (!p) return false;
    char c = char(*p);
    if (!c) return true;
    out.push_back(c);
  }
  return true;
}

// The format of a device assert on hardware (and in the CUDA programming
// guide's assert example):
//   FILE:LINE: FUNCTION: block: [x,y,z], thread: [x,y,z] Assertion `EXPR` failed.
std::string Warp::assert_line(uint64_t msg, uint64_t file, uint32_t line, uint64_t func, uint32_t lane) {
  std::string m, f, fn;
  if (!read_cstring(msg, kMaxString, lane, m) || !read_cstring(file, kMaxString, lane, f) ||
      !read_cstring(func, kMaxString, lane, fn))
    return {};
  return fmt::format("{}:{}: {}: block: [{},{},{}], thread: [{},{},{}] Assertion `{}` failed.\n", f, line, fn,
                     cta_->ctaid.x, cta_->ctaid.y, cta_->ctaid.z, tid_[0][lane], tid_[1][lane], tid_[2][lane], m);
}

void Warp::device_printf(uint64_t fmt_addr, uint64_t args_addr, uint32_t lane) {
  auto read_string = [&](uint64_t addr, size_t limit, std::string& out) -> bool {
    return read_cstring(addr, limit, lane, out);
  };
  std::string fmt_str;
  if (!read_string(fmt_addr, kMaxFormat, fmt_str)) return;
  std::string out;
  uint64_t arg_off = 0;
  uint64_t nargs = 0;
  auto read_arg = [&](uint32_t size, uint64_t& v) -> bool {
    ++nargs;
    arg_off = (arg_off + size - 1) / size * size;
    std::byte* p = translate(ptx::Space::Generic, args_addr + arg_off, size, lane, false);
    if (!p) return false;
    v = 0;
    std::memcpy(&v, p, size);
    arg_off += size;
    return true;
  };
  for (size_t i = 0; i < fmt_str.size(); ++i) {
    char c = fmt_str[i];
    if (c != '%') { out.push_back(c); continue; }
    if (i + 1 < fmt_str.size() && fmt_str[i + 1] == '%') { out.push_back('%'); ++i; continue; }
    // Collect one conversion specification: flags, width, precision, length, conversion.
    size_t j = i + 1;
    while (j < fmt_str.size() && std::strchr("-+ #0", fmt_str[j])) ++j;
    while (j < fmt_str.size() && (std::isdigit(static_cast<unsigned char>(fmt_str[j])) || fmt_str[j] == '.')) ++j;
    int longs = 0;
    bool half = false;
    while (j < fmt_str.size() && std::strchr("hlLqjzt", fmt_str[j])) {
      if (fmt_str[j] == 'l' || fmt_str[j] == 'L' || fmt_str[j] == 'q' || fmt_str[j] == 'j' || fmt_str[j] == 'z' ||
          fmt_str[j] == 't')
        ++longs;
      if (fmt_str[j] == 'h') half = true;
      ++j;
    }
    if (j >= fmt_str.size()) { out.append(fmt_str, i, std::string::npos); break; }
    const char conv = fmt_str[j];
    // The host's printf formats the value; the length modifiers are rebuilt
    // for the host type we pass.
    std::string spec = fmt_str.substr(i, j - i);
    while (!spec.empty() && std::strchr("hlLqjzt", spec.back())) spec.pop_back();
    char buf[512];
    uint64_t v = 0;
    int n = 0;
    switch (conv) {
      case 'd': case 'i': case 'u': case 'x': case 'X': case 'o': case 'c': {
        if (!read_arg(longs ? 8 : 4, v)) return;
        std::string f = spec + "ll" + conv;
        if (conv == 'c') { f = spec + "c"; n = std::snprintf(buf, sizeof buf, f.c_str(), int(v)); break; }
        if (conv == 'd' || conv == 'i') {
          long long sv = longs ? (long long)(int64_t(v)) : (long long)(int32_t(uint32_t(v)));
          if (half) sv = int16_t(sv);
          n = std::snprintf(buf, sizeof buf, f.c_str(), sv);
        } else {
          unsigned long long uv = longs ? v : uint32_t(v);
          if (half) uv = uint16_t(uv);
          n = std::snprintf(buf, sizeof buf, f.c_str(), uv);
        }
        break;
      }
      case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A': {
        if (!read_arg(8, v)) return;
        double d;
        std::memcpy(&d, &v, 8);
        n = std::snprintf(buf, sizeof buf, (spec + conv).c_str(), d);
        break;
      }
      case 'p': {
        if (!read_arg(8, v)) return;
        n = std::snprintf(buf, sizeof buf, (spec + "p").c_str(), reinterpret_cast<void*>(v));
        if (v == 0) n = std::snprintf(buf, sizeof buf, "(nil)");
        break;
      }
      case 's': {
        if (!read_arg(8, v)) return;
        std::string s;
        if (v == 0) s = "(null)";
        else if (!read_string(v, kMaxString, s)) return;
        n = std::snprintf(buf, sizeof buf, (spec + "s").c_str(), s.c_str());
        if (n >= int(sizeof buf)) { out += s; n = 0; }
        break;
      }
      default:
        out.append(fmt_str, i, j - i + 1);  // unknown conversion: printed as written
        break;
    }
    if (n > 0) out.append(buf, size_t(std::min<int>(n, int(sizeof buf) - 1)));
    i = j;
  }
  const uint64_t record = kPrintfRecordHeader + kPrintfArgSlot * nargs;
  std::lock_guard lock(L_.mu);
  if (L_.printf_fifo_used + record > L_.opts->printf_fifo_bytes) {
    L_.printf_fifo_used = L_.opts->printf_fifo_bytes;  // full: later, smaller records are dropped too
    return;
  }
  L_.printf_fifo_used += record;
  L_.printf_buffer += out;
}

}  // namespace softgpu::exec
