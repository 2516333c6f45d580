// Hostile input never crashes, hangs or floods: random bytes, truncations and
// byte flips of real nvcc output.
#include <gtest/gtest.h>

#include <random>

#include "ptx/parser.h"
#include "ptx/printer.h"
#include "ptx_test_util.h"

namespace softgpu::ptx {
namespace {

// Every result is a module or at least one error, never both, and rendering works.
void check_result(const std::string& text, size_t max_errors = 20) {
  auto r = parse(text, "fuzz.ptx", max_errors);
  size_t errors = 0;
  for (const auto& d : r.diagnostics) {
    errors += d.severity == Severity::Error;
    EXPECT_GE(d.loc.line, 1u);
    EXPECT_GE(d.loc.col, 1u);
  }
  EXPECT_LE(errors, max_errors);
  EXPECT_NE(r.module.has_value(), errors > 0);
  std::string out = render(r.diagnostics, text);
  if (errors > 0) {
    EXPECT_NE(out.find("error: "), std::string::npos);
  }
  if (r.module) {
    // Whatever parses must also survive the printer round trip.
    std::string p = print(*r.module);
    auto again = parse(p, "printed");
    ASSERT_TRUE(again.module) << render(again.diagnostics, p);
    EXPECT_EQ(test::diff(*r.module, *again.module), "");
  }
}

TEST(Robustness, RandomBytes) {
  std::mt19937 rng(12345);
  for (int i = 0; i < 300; ++i) {
    std::string s(size_t(rng() % 2000), '\0');
    for (auto& c : s) c = char(rng());
    check_result(s);
  }
}

TEST(Robustness, RandomTokensFromPtxAlphabet) {
  const char* pieces[] = {".entry", ".func", "{", "}", "(", ")", "[", "]", ";", ",", "%r1", "add.s32",
                          "@",      "!",     "0f3F800000", "-", "+", "|", "<", ">", ".reg", ".b32", "=",
                          "\n",     " ",     "$L1", ":", ".param", ".visible", "\"s", "/*", "0x", "_"};
  std::mt19937 rng(7);
  for (int i = 0; i < 500; ++i) {
    std::string s = ".version 8.0\n.target sm_80\n";
    size_t n = rng() % 200;
    for (size_t k = 0; k < n; ++k) s += pieces[rng() % std::size(pieces)], s += ' ';
    check_result(s);
  }
}

TEST(Robustness, EveryTruncationOfARealFile) {
  std::string text = test::read_data("constructs.ptx");
  ASSERT_FALSE(text.empty());
  size_t clean = 0;
  for (size_t n = 0; n < text.size(); n += 7) {
    check_result(text.substr(0, n));
    clean += parse(text.substr(0, n)).module.has_value();
  }
  EXPECT_LT(clean, text.size() / 7);  // most cuts land mid-item and must be reported
}

TEST(Robustness, ByteFlipsOfRealFiles) {
  std::mt19937 rng(99);
  for (const char* name : {"basic_sm80.ptx", "funcs_debug_sm80.ptx", "constructs.ptx"}) {
    std::string text = test::read_data(name);
    ASSERT_FALSE(text.empty());
    for (int i = 0; i < 60; ++i) {
      std::string s = text;
      for (int k = 0; k < 4; ++k) s[rng() % s.size()] = char(rng());
      check_result(s, 1 + rng() % 30);
    }
  }
}

TEST(Robustness, PathologicalShapes) {
  check_result("");
  check_result(std::string(1 << 20, '{'));
  check_result(std::string(1 << 20, '}'));
  check_result(std::string(1 << 16, '"'));
  check_result("/*" + std::string(1 << 16, 'x'));
  check_result(".global .u32 x[99999999999999999999999];");
  check_result(".global .b8 x[18446744073709551615];\n");
  check_result(".reg .b32 %r<4294967296>;");
  check_result(".version 99999999999999.1");
  check_result(std::string(1 << 16, 'a'));
  std::string huge_init = ".global .b8 x[1] = {";
  for (int i = 0; i < 100000; ++i) huge_init += "1, ";
  huge_init += "1};";
  check_result(huge_init);
  check_result(".visible .entry k() {" + std::string(100000, ';') + "}");
  check_result(".entry k() { mov.u32 %r1, 99999999999999999999999; }");
}

}  // namespace
}  // namespace softgpu::ptx
