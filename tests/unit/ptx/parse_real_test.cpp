// Real nvcc 13 output: every file parses cleanly, round-trips through the
// printer, and yields the kernels, parameters and globals the .cu defines.
#include <gtest/gtest.h>

#include <bit>
#include <chrono>
#include <functional>

#include "ptx/parser.h"
#include "ptx/printer.h"
#include "ptx_test_util.h"

namespace softgpu::ptx {
namespace {

using test::read_data;

const char* kFiles[] = {"basic_sm80.ptx",       "basic_sm90.ptx",          "basic_lineinfo_sm80.ptx",
                        "funcs_sm80.ptx",       "funcs_debug_sm80.ptx",    "fp16_sm80.ptx",
                        "wmma_sm80.ptx",        "coop_sm90.ptx",           "constructs.ptx"};

Module parse_ok(const std::string& name) {
  std::string text = read_data(name);
  EXPECT_FALSE(text.empty()) << name;
  auto r = parse(text, name);
  EXPECT_TRUE(r.diagnostics.empty()) << render(r.diagnostics, text);
  EXPECT_TRUE(r.module.has_value());
  return r.module ? *r.module : Module{};
}

const Function* find_fn(const Module& m, std::string_view name) {
  for (const auto& f : m.functions)
    if (f.name == name && f.body) return &f;
  for (const auto& f : m.functions)
    if (f.name == name) return &f;
  return nullptr;
}

const VarDecl* find_global(const Module& m, std::string_view name) {
  for (const auto& g : m.globals)
    if (g.name == name) return &g;
  return nullptr;
}

void walk(const Block& b, const std::function<void(const Statement&)>& fn) {
  for (const auto& s : b.body) {
    fn(s);
    if (auto* inner = std::get_if<std::shared_ptr<Block>>(&s)) walk(**inner, fn);
  }
}

std::vector<Instruction> instructions(const Function& f) {
  std::vector<Instruction> out;
  if (f.body)
    walk(*f.body, [&](const Statement& s) {
      if (auto* in = std::get_if<Instruction>(&s)) out.push_back(*in);
    });
  return out;
}

// "ld.global.nc.f32" -> the first instruction with that opcode+modifiers.
const Instruction* find_insn(const std::vector<Instruction>& v, std::string_view full) {
  for (const auto& in : v) {
    std::string s = in.opcode;
    for (const auto& m : in.modifiers) s += m;
    if (s == full) return &in;
  }
  return nullptr;
}

class RealFile : public ::testing::TestWithParam<const char*> {};

TEST_P(RealFile, ParsesWithoutDiagnostics) {
  Module m = parse_ok(GetParam());
  EXPECT_GT(m.functions.size(), 0u);
  EXPECT_EQ(m.address_size, 64u);
}

TEST_P(RealFile, PrintThenParseGivesEqualModule) {
  Module m = parse_ok(GetParam());
  std::string printed = print(m);
  auto r = parse(printed, "printed");
  ASSERT_TRUE(r.module) << render(r.diagnostics, printed);
  EXPECT_EQ(test::diff(m, *r.module), "");
  EXPECT_EQ(print(*r.module), printed);
}

INSTANTIATE_TEST_SUITE_P(Nvcc, RealFile, ::testing::ValuesIn(kFiles));

TEST(RealPtx, BasicModuleHeaderKernelsAndParams) {
  Module m = parse_ok("basic_sm80.ptx");
  EXPECT_EQ(m.version_major, 9u);
  EXPECT_EQ(m.version_minor, 0u);
  EXPECT_EQ(m.target, "sm_80");
  std::vector<std::string> kernels;
  for (const auto& f : m.functions)
    if (f.is_entry) kernels.push_back(f.name);
  EXPECT_EQ(kernels, (std::vector<std::string>{"_Z5saxpyifPKfPf", "_Z13reduce_sharedPKfPfi", "_Z10dyn_sharedPi",
                                               "_Z8warp_opsPKiPi", "_Z8math_opsPfPd", "_Z5helloi"}));
  const Function* saxpy = find_fn(m, "_Z5saxpyifPKfPf");
  ASSERT_NE(saxpy, nullptr);
  EXPECT_EQ(saxpy->linkage, Linkage::Visible);
  ASSERT_EQ(saxpy->params.size(), 4u);
  EXPECT_EQ(saxpy->params[0].type, Type::U32);
  EXPECT_EQ(saxpy->params[1].type, Type::F32);
  EXPECT_EQ(saxpy->params[2].type, Type::U64);
  EXPECT_EQ(saxpy->params[3].name, "_Z5saxpyifPKfPf_param_3");
  EXPECT_EQ(saxpy->params[3].space, Space::Param);

  const Function* vprintf = find_fn(m, "vprintf");
  ASSERT_NE(vprintf, nullptr);
  EXPECT_FALSE(vprintf->body.has_value());
  EXPECT_EQ(vprintf->linkage, Linkage::Extern);
  ASSERT_EQ(vprintf->returns.size(), 1u);
  EXPECT_EQ(vprintf->returns[0].name, "func_retval0");
  EXPECT_EQ(vprintf->params.size(), 2u);
}

TEST(RealPtx, BasicGlobalsAndInitializers) {
  Module m = parse_ok("basic_sm80.ptx");
  ASSERT_EQ(m.globals.size(), m.global_linkage.size());
  const VarDecl* coeffs = find_global(m, "coeffs");
  ASSERT_NE(coeffs, nullptr);
  EXPECT_EQ(coeffs->space, Space::Const);
  EXPECT_EQ(coeffs->type, Type::B8);
  EXPECT_EQ(coeffs->align, 4u);
  ASSERT_EQ(coeffs->dims.size(), 1u);
  EXPECT_EQ(coeffs->dims[0], 32u);
  ASSERT_EQ(coeffs->init.size(), 32u);
  // Bytes 12..15 are -4.0f (0xC0800000) little-endian, as in basic.cu.
  uint32_t bits = 0;
  for (int i = 0; i < 4; ++i) bits |= uint32_t(coeffs->init[12 + i].bits) << (8 * i);
  EXPECT_EQ(std::bit_cast<float>(bits), -4.0f);

  const VarDecl* table = find_global(m, "table");
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->init.size(), 21u);  // nvcc drops trailing zero bytes
  EXPECT_EQ(table->init[20].bits, 6u);

  const VarDecl* p = find_global(m, "ptr_to_counter");
  ASSERT_NE(p, nullptr);
  ASSERT_EQ(p->init.size(), 1u);
  EXPECT_EQ(p->init[0].kind, InitValue::Kind::Symbol);
  EXPECT_TRUE(p->init[0].generic);
  EXPECT_EQ(p->init[0].symbol, "counter");

  const VarDecl* ds = find_global(m, "ds");
  ASSERT_NE(ds, nullptr);
  EXPECT_EQ(ds->space, Space::Shared);
  ASSERT_EQ(ds->dims.size(), 1u);
  EXPECT_FALSE(ds->dims[0].has_value());
  EXPECT_EQ(m.global_linkage[size_t(ds - m.globals.data())], Linkage::Extern);

  const VarDecl* str = find_global(m, "$str");
  ASSERT_NE(str, nullptr);
  std::string s;
  for (const auto& v : str->init) s += char(v.bits);
  EXPECT_EQ(s, "hello %d from %d %f\n");
}

TEST(RealPtx, BasicInstructions) {
  Module m = parse_ok("basic_sm80.ptx");
  auto red = instructions(*find_fn(m, "_Z13reduce_sharedPKfPfi"));
  EXPECT_NE(find_insn(red, "bar.sync"), nullptr);
  const Instruction* atom = find_insn(red, "atom.global.add.f32");
  ASSERT_NE(atom, nullptr);
  ASSERT_EQ(atom->operands.size(), 3u);
  EXPECT_EQ(atom->operands[1].kind, Operand::Kind::Address);
  EXPECT_TRUE(atom->operands[1].base_is_register);

  auto saxpy = instructions(*find_fn(m, "_Z5saxpyifPKfPf"));
  const Instruction* tid = nullptr;
  for (const auto& in : saxpy)
    if (in.opcode == "mov" && in.operands.size() == 2 && in.operands[1].name == "%tid.x") tid = &in;
  ASSERT_NE(tid, nullptr);
  EXPECT_EQ(tid->operands[1].kind, Operand::Kind::Register);
  const Instruction* ldnc = find_insn(saxpy, "ld.global.nc.f32");
  ASSERT_NE(ldnc, nullptr);
  EXPECT_EQ(ldnc->modifiers, (std::vector<std::string>{".global", ".nc", ".f32"}));

  // Guarded branch: "@%p1 bra $L__BB0_2;"
  bool guarded_bra = false;
  for (const auto& in : saxpy)
    if (in.opcode == "bra" && in.guard) guarded_bra = in.operands[0].kind == Operand::Kind::Symbol;
  EXPECT_TRUE(guarded_bra);

  auto warp = instructions(*find_fn(m, "_Z8warp_opsPKiPi"));
  const Instruction* shfl = find_insn(warp, "shfl.sync.down.b32");
  ASSERT_NE(shfl, nullptr);
  EXPECT_EQ(shfl->operands.size(), 5u);
  EXPECT_NE(find_insn(warp, "atom.global.max.s32"), nullptr);
  EXPECT_NE(find_insn(warp, "atom.global.cas.b32"), nullptr);

  // printf: call.uni (retval0), vprintf, (param0, param1) inside a callseq scope.
  auto hello = instructions(*find_fn(m, "_Z5helloi"));
  const Instruction* call = find_insn(hello, "call.uni");
  ASSERT_NE(call, nullptr);
  ASSERT_EQ(call->operands.size(), 3u);
  EXPECT_EQ(call->operands[0].kind, Operand::Kind::List);
  EXPECT_EQ(call->operands[1].kind, Operand::Kind::Symbol);
  EXPECT_EQ(call->operands[1].name, "vprintf");
  ASSERT_EQ(call->operands[2].kind, Operand::Kind::List);
  ASSERT_EQ(call->operands[2].list.size(), 2u);
  EXPECT_EQ(call->operands[2].list[1].name, "param1");
  bool has_scope = false;
  for (const auto& s : find_fn(m, "_Z5helloi")->body->body)
    has_scope |= std::holds_alternative<std::shared_ptr<Block>>(s);
  EXPECT_TRUE(has_scope);
}

TEST(RealPtx, FuncsRecursionStructsIndirectCalls) {
  Module m = parse_ok("funcs_sm80.ptx");
  const Function* fib = find_fn(m, "_Z3fibi");
  ASSERT_NE(fib, nullptr);
  EXPECT_FALSE(fib->is_entry);
  ASSERT_EQ(fib->returns.size(), 1u);
  bool calls_self = false;
  for (const auto& in : instructions(*fib))
    if (in.opcode == "call") calls_self |= in.operands.size() >= 2 && in.operands[1].name == "_Z3fibi";
  EXPECT_TRUE(calls_self);

  const Function* mp = find_fn(m, "_Z9make_pairi3Big");
  ASSERT_NE(mp, nullptr);
  ASSERT_EQ(mp->returns.size(), 1u);
  EXPECT_EQ(mp->returns[0].align, 4u);
  EXPECT_EQ(mp->returns[0].dims, (std::vector<std::optional<uint64_t>>{8}));
  ASSERT_EQ(mp->params.size(), 2u);
  EXPECT_EQ(mp->params[1].dims, (std::vector<std::optional<uint64_t>>{16}));

  const Function* k = find_fn(m, "_Z9use_funcsPi4Pair3Bigi");
  ASSERT_NE(k, nullptr);
  ASSERT_EQ(k->params.size(), 4u);
  EXPECT_EQ(k->params[1].align, 8u);
  bool proto = false, indirect = false;
  walk(*k->body, [&](const Statement& s) {
    if (auto* l = std::get_if<Label>(&s); l && l->kind == Label::Kind::CallPrototype) {
      proto = l->proto_returns.size() == 1 && l->proto_params.size() == 1;
    }
    if (auto* in = std::get_if<Instruction>(&s); in && in->opcode == "call" && in->operands.size() == 4)
      indirect = in->operands[1].kind == Operand::Kind::Register && in->operands[3].kind == Operand::Kind::Symbol;
  });
  EXPECT_TRUE(proto);
  EXPECT_TRUE(indirect);

  const VarDecl* fns = find_global(m, "fns");
  ASSERT_NE(fns, nullptr);
  ASSERT_EQ(fns->init.size(), 2u);
  EXPECT_EQ(fns->init[0].symbol, "_Z5twicef");
  EXPECT_EQ(fns->init[1].symbol, "_Z6thricef");

  const Function* b = find_fn(m, "_Z7boundedPf");
  ASSERT_NE(b, nullptr);
  using D = std::vector<std::pair<std::string, std::vector<uint64_t>>>;
  EXPECT_EQ(b->directives, (D{{"maxntid", {128, 1, 1}}, {"minnctapersm", {4}}}));
}

TEST(RealPtx, DebugOutputSkipsSectionsAndRecordsFiles) {
  Module m = parse_ok("funcs_debug_sm80.ptx");
  ASSERT_EQ(m.files.size(), 1u);
  EXPECT_EQ(m.files[0].first, 1u);
  EXPECT_NE(m.files[0].second.find("funcs.cu"), std::string::npos);
  EXPECT_NE(find_fn(m, "_Z9use_funcsPi4Pair3Bigi"), nullptr);
  // Section contents (.b8 lists) must not leak into globals.
  for (const auto& g : m.globals) EXPECT_NE(g.space, Space::Reg) << g.name;

  Module li = parse_ok("basic_lineinfo_sm80.ptx");
  EXPECT_EQ(li.files.size(), 4u);
  Module plain = parse_ok("basic_sm80.ptx");
  EXPECT_EQ(li.functions.size(), plain.functions.size());
}

TEST(RealPtx, Sm90ClustersAndAsyncCopies) {
  Module m = parse_ok("coop_sm90.ptx");
  EXPECT_EQ(m.target, "sm_90");
  const Function* c = find_fn(m, "_Z9clusteredPi");
  ASSERT_NE(c, nullptr);
  using D = std::vector<std::pair<std::string, std::vector<uint64_t>>>;
  EXPECT_EQ(c->directives, (D{{"explicitcluster", {}}, {"reqnctapercluster", {2, 1, 1}}}));
  EXPECT_NE(find_insn(instructions(*c), "mapa.u64"), nullptr);
  auto ac = instructions(*find_fn(m, "_Z10async_copyPK6float4PS_"));
  const Instruction* cp = find_insn(ac, "cp.async.cg.shared.global");
  ASSERT_NE(cp, nullptr);
  EXPECT_EQ(cp->opcode, "cp");
  EXPECT_EQ(cp->operands.size(), 4u);
  EXPECT_NE(find_insn(ac, "cp.async.commit_group"), nullptr);
  EXPECT_NE(find_insn(instructions(*find_fn(m, "_Z9cg_reducePKiPi")), "redux.sync.add.s32"), nullptr);
}

TEST(RealPtx, WmmaAndHalfPrecision) {
  Module w = parse_ok("wmma_sm80.ptx");
  auto in = instructions(w.functions.at(0));
  const Instruction* lda = find_insn(in, "wmma.load.a.sync.aligned.row.m16n16k16.global.f16");
  ASSERT_NE(lda, nullptr);
  ASSERT_EQ(lda->operands[0].kind, Operand::Kind::Vector);
  EXPECT_EQ(lda->operands[0].list.size(), 8u);
  bool mma = false;
  for (const auto& i : in) mma |= i.opcode == "wmma" && i.modifiers.size() > 0 && i.modifiers[0] == ".mma";
  EXPECT_TRUE(mma);

  Module h = parse_ok("fp16_sm80.ptx");
  auto hi = instructions(h.functions.at(0));
  bool cvt_f16 = false;
  for (const auto& i : hi)
    for (const auto& mod : i.modifiers) cvt_f16 |= i.opcode == "cvt" && (mod == ".f16" || mod == ".bf16");
  EXPECT_TRUE(cvt_f16);
}

TEST(RealPtx, OneMegabyteParsesWellUnderASecond) {
  std::string base = read_data("basic_sm80.ptx");
  size_t body = base.find(".visible .entry");
  std::string text = base.substr(0, body);
  std::string kernels = base.substr(body);
  // Duplicate names are the loader's business, not the parser's.
  while (text.size() < (1u << 20)) text += kernels;
  auto t0 = std::chrono::steady_clock::now();
  auto r = parse(text, "big.ptx");
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(r.module) << render(r.diagnostics, text).substr(0, 2000);
  EXPECT_GT(r.module->functions.size(), 200u);
  EXPECT_LT(s, 0.5) << "parsing " << text.size() << " bytes took " << s << " s";
}

}  // namespace
}  // namespace softgpu::ptx
