// Decodes a kernel body written inline in a test.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <unordered_map>

#include "program/decoder.h"
#include "ptx/parser.h"

namespace softgpu::test {

// `body` goes inside `.entry k(.param .u32 n)` after a few register
// declarations (%p<4> predicates, %r<8> .b32, %rd<8> .b64, %f<8> .f32,
// %fd<8> .f64, %h<8> .b16).
inline program::Program decode(const std::string& body) {
  std::string text = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u32 n)\n{\n"
                     ".reg .pred %p<4>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<8>;\n.reg .f32 %f<8>;\n"
                     ".reg .f64 %fd<8>;\n.reg .b16 %h<8>;\n" + body + "}\n";
  auto r = ptx::parse(text, "k.ptx");
  EXPECT_TRUE(r.module) << ptx::render(r.diagnostics, text);
  std::vector<ptx::Module> mods;
  if (r.module) mods.push_back(std::move(*r.module));
  std::unordered_map<std::string, uint64_t> vars;
  program::Program p;
  std::vector<ptx::Diagnostic> diags;
  EXPECT_TRUE(program::decode({&mods, &vars}, p, diags)) << ptx::render(diags, text);
  return p;
}

}  // namespace softgpu::test
