#include "exec/arena.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace softgpu::exec {

uint64_t Arena::page_size() {
  static const uint64_t p = uint64_t(sysconf(_SC_PAGESIZE));
  return p;
}

Arena::Arena(uint64_t bytes) {
  constexpr uint64_t kMin = uint64_t(64) << 20;
  const uint64_t full = (bytes + kChunk - 1) & ~(kChunk - 1);
  for (uint64_t want = full; want; want = want > kMin ? (want / 2) & ~(kChunk - 1) : 0) {
    // One chunk extra so that the region can be aligned to a chunk.
    void* p = mmap(nullptr, want + kChunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) continue;
    const uint64_t raw = reinterpret_cast<uint64_t>(p);
    const uint64_t aligned = (raw + kChunk - 1) & ~(kChunk - 1);
    if (aligned > raw) munmap(p, aligned - raw);
    if (raw + kChunk > aligned) munmap(reinterpret_cast<void*>(aligned + want), raw + kChunk - aligned);
    base_ = aligned;
    size_ = want;
    break;
  }
  const uint64_t chunks = size_ >> kChunkShift;
  flags_ = std::make_unique<std::atomic<uint8_t>[]>(chunks ? chunks : 1);
  for (uint64_t c = 0; c < chunks; ++c) flags_[c].store(0, std::memory_order_relaxed);
  holders_.assign(chunks, 0);
}

Arena::~Arena() {
  if (size_) munmap(reinterpret_cast<void*>(base_), size_);
}

void Arena::hold(uint64_t addr, uint64_t n) {
  if (!n) return;
  for (uint64_t c = first(addr), e = last(addr, n); c <= e; ++c)
    if (holders_[c]++ == 0) flags_[c].fetch_or(kMapped, std::memory_order_relaxed);
}

void Arena::drop(uint64_t addr, uint64_t n) {
  if (!n) return;
  for (uint64_t c = first(addr), e = last(addr, n); c <= e; ++c) {
    if (!holders_[c] || --holders_[c]) continue;
    const uint8_t old = flags_[c].fetch_and(uint8_t(~(kMapped | kTouched)), std::memory_order_relaxed);
    if (old & kTouched) {
      touched_.fetch_sub(kChunk, std::memory_order_relaxed);
      release_pages(base_ + (c << kChunkShift), base_ + ((c + 1) << kChunkShift));
    }
  }
}

void Arena::set_const(uint64_t addr, uint64_t n) {
  if (!n) return;
  for (uint64_t c = first(addr), e = last(addr, n); c <= e; ++c) flags_[c].fetch_or(kConst, std::memory_order_relaxed);
}

uint64_t Arena::touch(uint64_t addr, uint64_t n) {
  if (!n) return 0;
  uint64_t added = 0;
  for (uint64_t c = first(addr), e = last(addr, n); c <= e; ++c)
    if (!(flags_[c].fetch_or(kTouched, std::memory_order_relaxed) & kTouched)) added += kChunk;
  touched_.fetch_add(added, std::memory_order_relaxed);
  return added;
}

bool Arena::all_touched(uint64_t addr, uint64_t n) const { return untouched_bytes(addr, n) == 0; }

uint64_t Arena::untouched_bytes(uint64_t addr, uint64_t n) const {
  if (!n) return 0;
  uint64_t u = 0;
  for (uint64_t c = first(addr), e = last(addr, n); c <= e; ++c)
    if (!(flags_[c].load(std::memory_order_relaxed) & kTouched)) u += kChunk;
  return u;
}

void Arena::zero(uint64_t addr, uint64_t n) {
  if (!n) return;
  const uint64_t pg = page_size();
  const uint64_t lo = (addr + pg - 1) & ~(pg - 1), hi = (addr + n) & ~(pg - 1);
  if (lo >= hi) {  // no whole page inside
    touch(addr, n);
    std::memset(reinterpret_cast<void*>(addr), 0, n);
    return;
  }
  release_pages(lo, hi);
  if (lo > addr) {
    touch(addr, lo - addr);
    std::memset(reinterpret_cast<void*>(addr), 0, lo - addr);
  }
  if (addr + n > hi) {
    touch(hi, addr + n - hi);
    std::memset(reinterpret_cast<void*>(hi), 0, addr + n - hi);
  }
}

void Arena::release_pages(uint64_t lo, uint64_t hi) {
  const uint64_t pg = page_size();
  lo = (lo + pg - 1) & ~(pg - 1);
  hi &= ~(pg - 1);
  if (lo < hi) madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_DONTNEED);
}

void Arena::scrub(uint64_t addr, uint64_t n, uint64_t free_lo, uint64_t free_hi) {
  if (!n) return;
  const uint64_t pg = page_size();
  const uint64_t end = addr + n;
  uint64_t rl = (std::max(free_lo, addr & ~(pg - 1)) + pg - 1) & ~(pg - 1);
  uint64_t rh = std::min(free_hi, (end + pg - 1) & ~(pg - 1)) & ~(pg - 1);
  if (rl < rh) release_pages(rl, rh);
  else rl = rh = end;  // no whole free page: clear everything below
  auto clear = [&](uint64_t lo, uint64_t hi) {  // [lo, hi) within at most a couple of pages
    for (uint64_t p = lo & ~(pg - 1); p < hi; p += pg) {
      unsigned char v = 0;
      if (mincore(reinterpret_cast<void*>(p), pg, &v) != 0 || (v & 1)) {
        const uint64_t a = std::max(lo, p), b = std::min(hi, p + pg);
        std::memset(reinterpret_cast<void*>(a), 0, b - a);
      }
    }
  };
  if (addr < std::min(rl, end)) clear(addr, std::min(rl, end));
  if (std::max(rh, addr) < end) clear(std::max(rh, addr), end);
}

uint64_t Arena::nonresident_bytes(uint64_t addr, uint64_t n) const {
  if (!n) return 0;
  const uint64_t pg = page_size();
  uint64_t lo = addr & ~(pg - 1);
  const uint64_t hi = (addr + n + pg - 1) & ~(pg - 1);
  constexpr uint64_t kStep = uint64_t(1) << 30;  // 1 GiB per mincore call
  std::vector<unsigned char> vec;
  uint64_t missing = 0;
  for (; lo < hi; lo += kStep) {
    const uint64_t len = std::min(kStep, hi - lo);
    vec.resize(len / pg);
    if (mincore(reinterpret_cast<void*>(lo), len, vec.data()) != 0) return hi - lo + missing;  // assume the worst
    for (unsigned char v : vec) missing += (v & 1) ? 0 : pg;
  }
  return missing;
}

}  // namespace softgpu::exec
