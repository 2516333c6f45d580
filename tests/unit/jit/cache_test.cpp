// The JIT's on-disk cache (jit/cache.h): entries round-trip, damaged or
// foreign entries are refused and removed, the size limit holds; a second
// compiler (as in a second run) loads the code instead of compiling it,
// a damaged cache is recompiled and rewritten, and identical functions of
// two programs share their machine code. Results are the CPU reference's
// in every case (Prog::run checks them).
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "jit/cache.h"
#include "tier_prog.h"

using namespace softgpu;
using namespace softgpu::jit_test;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path p;
  TempDir() {
    p = fs::temp_directory_path() / ("softgpu_jit_cache_" + std::to_string(::getpid()) + "_" +
                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(p);
  }
  ~TempDir() { fs::remove_all(p); }
  size_t entries() const {
    size_t n = 0;
    if (fs::exists(p))
      for (auto& e : fs::directory_iterator(p)) n += e.path().extension() == ".o";
    return n;
  }
};

std::string key(char c) { return std::string(64, c); }

std::unique_ptr<exec::CodeCompiler> compiler_with_cache(const fs::path& dir) {
  jit::JitOptions o;
  o.cache_dir = dir.string();
  std::string why;
  auto c = jit::make_compiler(o, &why);
  EXPECT_TRUE(c) << why;
  return c;
}

}  // namespace

TEST(JitCache, EntriesRoundTrip) {
  TempDir d;
  jit::DiskCache c(d.p.string());
  EXPECT_FALSE(c.get(key('a')));
  const std::string obj = "\x7f" "ELF some object bytes \0 with a zero";
  ASSERT_TRUE(c.put(key('a'), obj));
  EXPECT_EQ(c.get(key('a')), obj);
  EXPECT_FALSE(c.get(key('b')));
  EXPECT_FALSE(c.put("short", obj));  // keys are 64 hex digits
}

TEST(JitCache, DamagedEntriesAreRemoved) {
  TempDir d;
  jit::DiskCache c(d.p.string());
  const std::string obj(1000, 'x');
  const fs::path f = d.p / (key('a') + ".o");
  // Truncated, one byte flipped, and an entry under another key's name.
  for (int kind = 0; kind < 3; ++kind) {
    ASSERT_TRUE(c.put(key('a'), obj));
    ASSERT_TRUE(c.put(key('b'), obj));
    if (kind == 0) fs::resize_file(f, fs::file_size(f) - 10);
    if (kind == 1) {
      std::fstream s(f, std::ios::in | std::ios::out | std::ios::binary);
      s.seekp(500);
      s.put('y');
    }
    if (kind == 2) fs::copy_file(d.p / (key('b') + ".o"), f, fs::copy_options::overwrite_existing);
    EXPECT_FALSE(c.get(key('a'))) << kind;
    EXPECT_FALSE(fs::exists(f)) << kind;
    EXPECT_EQ(c.get(key('b')), obj) << kind;
  }
}

// A FIFO or a directory at an entry's name is a miss, returned at once
// (opening the FIFO to read it would wait for a writer forever), and is
// left where it is.
TEST(JitCache, NonRegularEntriesAreMissesNotHangs) {
  TempDir d;
  jit::DiskCache c(d.p.string());
  ASSERT_TRUE(c.put(key('b'), "object"));  // creates the directory
  const fs::path fifo = d.p / (key('a') + ".o");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_FALSE(c.get(key('a')));
  EXPECT_TRUE(fs::is_fifo(fifo));
  const fs::path dir = d.p / (key('c') + ".o");
  fs::create_directory(dir);
  EXPECT_FALSE(c.get(key('c')));
  EXPECT_TRUE(fs::is_directory(dir));
  EXPECT_EQ(c.get(key('b')), "object");
}

TEST(JitCache, StaysUnderItsLimit) {
  TempDir d;
  jit::DiskCache c(d.p.string(), 10 * 1100);  // room for about ten 1000-byte entries
  const std::string obj(1000, 'z');
  for (char k = 'a'; k < 'a' + 20; ++k) ASSERT_TRUE(c.put(key(k), obj));
  uint64_t total = 0;
  for (auto& e : fs::directory_iterator(d.p)) total += e.file_size();
  EXPECT_LE(total, 10u * 1100);
  EXPECT_TRUE(c.get(key('a' + 19)));  // the newest stays
}

TEST(JitCache, SecondRunLoadsTheCode) {
  TempDir d;
  {
    auto jit = compiler_with_cache(d.p);
    Prog p(jit.get());
    auto r = p.run(4, 64, 50);
    EXPECT_GT(r.compiled_instructions, 0u);
    EXPECT_EQ(jit::stats(*jit).compiled, 1u);
    EXPECT_EQ(jit::stats(*jit).from_disk, 0u);
  }
  EXPECT_EQ(d.entries(), 1u);
  {
    auto jit = compiler_with_cache(d.p);
    Prog p(jit.get());
    auto r = p.run(4, 64, 50);
    EXPECT_GT(r.compiled_instructions, r.warp_instructions * 9 / 10);
    EXPECT_EQ(jit::stats(*jit).compiled, 0u);
    EXPECT_EQ(jit::stats(*jit).from_disk, 1u);
  }
}

// Code a previous run stored runs from the first launch, however high the
// hot threshold: the threshold weighs compiling, and there is nothing left
// to compile. Without stored code, the same launch stays interpreted.
TEST(JitCache, StoredCodeRunsFromTheFirstLaunch) {
  TempDir d;
  {
    auto jit = compiler_with_cache(d.p);
    Prog p(jit.get());
    p.opts.jit_hot = 0;
    p.run(4, 64, 50);
  }
  {
    auto jit = compiler_with_cache(d.p);
    Prog p(jit.get());
    p.opts.jit_hot = 1ull << 40;
    auto r = p.run(4, 64, 50);
    EXPECT_GT(r.compiled_instructions, r.warp_instructions * 9 / 10);
    EXPECT_EQ(jit::stats(*jit).compiled, 0u);
    EXPECT_EQ(jit::stats(*jit).from_disk, 1u);
  }
  {
    auto jit = compiler_with_cache(d.p / "another");
    Prog p(jit.get());
    p.opts.jit_hot = 1ull << 40;
    auto r = p.run(4, 64, 50);
    EXPECT_EQ(r.compiled_instructions, 0u);
    EXPECT_EQ(jit::stats(*jit).compiled, 0u);
  }
}

TEST(JitCache, DamagedCacheIsRecompiledAndRewritten) {
  TempDir d;
  {
    auto jit = compiler_with_cache(d.p);
    Prog p(jit.get());
    p.run(4, 64, 50);
  }
  for (auto& e : fs::directory_iterator(d.p)) {
    std::fstream s(e.path(), std::ios::in | std::ios::out | std::ios::binary);
    s.seekp(200);
    s.put('\x55');
    s.put('\xaa');
  }
  for (int run = 0; run < 2; ++run) {
    auto jit = compiler_with_cache(d.p);
    Prog p(jit.get());
    auto r = p.run(4, 64, 50);
    EXPECT_GT(r.compiled_instructions, 0u);
    EXPECT_EQ(jit::stats(*jit).compiled, run == 0 ? 1u : 0u);
    EXPECT_EQ(jit::stats(*jit).from_disk, run == 0 ? 0u : 1u);
  }
}

TEST(JitCache, IdenticalFunctionsShareMachineCode) {
  auto jit = compiler_with_cache({});
  Prog a(jit.get()), b(jit.get());
  a.run(4, 64, 50);
  auto r = b.run(4, 64, 50);
  EXPECT_GT(r.compiled_instructions, 0u);
  EXPECT_EQ(jit::stats(*jit).compiled, 1u);
  EXPECT_EQ(jit::stats(*jit).reused, 1u);
}
