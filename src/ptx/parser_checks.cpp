// Checks on a whole parsed function that the grammar alone cannot make:
// labels defined once and every branch target defined, static shared (and,
// for `softgpu check`, local) memory within what the hardware provides,
// vector widths PTX allows on instructions, setmaxnreg's register count.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "ptx/parser_impl.h"

namespace softgpu::ptx::detail {

uint64_t type_bytes(Type t) {
  switch (t) {
    case Type::None: return 0;
    case Type::Pred: case Type::B8: case Type::U8: case Type::S8: case Type::E4M3: case Type::E5M2: return 1;
    case Type::B16: case Type::U16: case Type::S16: case Type::F16: case Type::BF16: case Type::E4M3x2:
    case Type::E5M2x2: return 2;
    case Type::B32: case Type::U32: case Type::S32: case Type::F32: case Type::TF32: case Type::F16x2:
    case Type::BF16x2: return 4;
    case Type::B64: case Type::U64: case Type::S64: case Type::F64: return 8;
    case Type::B128: return 16;
  }
  return 0;
}

namespace {

// Bytes a variable occupies, saturating instead of wrapping; "[]" counts 0
// (an extern .shared array is sized at launch).
uint64_t var_bytes(const VarDecl& d) {
  constexpr uint64_t kCap = uint64_t(1) << 62;
  uint64_t n = std::max<uint64_t>(type_bytes(d.type), 1) * std::max<uint32_t>(d.vector, 1);
  for (const auto& dim : d.dims) {
    uint64_t k = dim.value_or(0);
    n = (k != 0 && n > kCap / k) ? kCap : n * k;
  }
  return n;
}

uint64_t align_to(uint64_t v, uint64_t a) { return a > 1 ? (v + a - 1) / a * a : v; }

struct Walk {
  std::unordered_map<std::string, SourceLoc> labels;         // every label kind, for duplicates
  std::unordered_set<std::string> code_labels;               // plain labels: branch targets
  std::vector<std::pair<std::string, SourceLoc>> targets;    // bra / .branchtargets uses
  std::vector<std::pair<std::string, SourceLoc>> tables;     // brx.idx table names
  std::vector<const Label*> dups;                            // second and later definitions
  std::vector<const VarDecl*> shared, local;
  std::unordered_set<std::string> symbols;                   // names used by instructions

  void block(const Block& b) {
    for (const auto& st : b.body) {
      if (const auto* l = std::get_if<Label>(&st)) label(*l);
      else if (const auto* in = std::get_if<Instruction>(&st)) instruction(*in);
      else if (const auto* v = std::get_if<VarDecl>(&st)) {
        if (v->space == Space::Shared) shared.push_back(v);
        if (v->space == Space::Local) local.push_back(v);
      } else if (const auto* inner = std::get_if<std::shared_ptr<Block>>(&st)) {
        block(**inner);  // the parser bounds the nesting depth
      }
    }
  }

  void label(const Label& l) {
    if (!labels.emplace(l.name, l.loc).second) dups.push_back(&l);
    if (l.kind == Label::Kind::Plain) code_labels.insert(l.name);
    if (l.kind == Label::Kind::BranchTargets)
      for (const auto& t : l.targets) targets.emplace_back(t, l.loc);
  }

  void instruction(const Instruction& in) {
    for (const auto& o : in.operands) {
      if (o.kind == Operand::Kind::Symbol || (o.kind == Operand::Kind::Address && !o.base_is_register))
        symbols.insert(o.name);
    }
    if (in.opcode == "bra" && in.operands.size() == 1 && in.operands[0].kind == Operand::Kind::Symbol)
      targets.emplace_back(in.operands[0].name, in.operands[0].loc);
    if (in.opcode == "brx" && in.operands.size() >= 2) {
      const Operand& t = in.operands[1];
      if (t.kind == Operand::Kind::Symbol) tables.emplace_back(t.name, t.loc);
      if (t.kind == Operand::Kind::Vector || t.kind == Operand::Kind::List)
        for (const auto& e : t.list)
          if (e.kind == Operand::Kind::Symbol) targets.emplace_back(e.name, e.loc);
    }
  }
};

std::string loc_text(SourceLoc l) { return fmt::format("{}:{}", l.line, l.col); }

// Labels are scoped like declarations: one defined inside a "{ }" block is
// visible only there (inline asm blocks repeat labels such as CUTLASS's
// "LAB_WAIT:"). A label of a nested block whose name the function defines
// more than once gets a name of its own, kScopeMark and a number appended,
// and the names used inside the block that refer to it follow; what lies
// outside still sees the outer names. Names defined once stay as written
// (so printing the module and parsing it again gives the same module).
constexpr std::string_view kScopeMark = "$$";

struct ScopeLabels {
  std::vector<std::unordered_map<std::string, std::string>> env;
  std::unordered_map<std::string, uint32_t> defined;  // definitions per name in the function
  uint32_t counter = 0;

  void count(const Block& b) {
    for (const auto& st : b.body) {
      if (const auto* l = std::get_if<Label>(&st)) ++defined[l->name];
      else if (const auto* inner = std::get_if<std::shared_ptr<Block>>(&st)) count(**inner);
    }
  }

  const std::string* find(const std::string& n) const {
    for (auto it = env.rbegin(); it != env.rend(); ++it)
      if (auto f = it->find(n); f != it->end()) return &f->second;
    return nullptr;
  }
  void rename(std::string& n) const {
    if (const std::string* r = find(n)) n = *r;
  }
  void operand(Operand& o) const {
    if (o.kind == Operand::Kind::Symbol || (o.kind == Operand::Kind::Address && !o.base_is_register)) rename(o.name);
    for (auto& e : o.list) operand(e);
  }
  void block(Block& b, bool nested) {
    std::unordered_map<std::string, std::string> mine;
    if (nested)
      for (const auto& st : b.body)
        if (const auto* l = std::get_if<Label>(&st); l && defined[l->name] > 1 && !mine.count(l->name))
          mine[l->name] = fmt::format("{}{}{}", l->name, kScopeMark, ++counter);
    env.push_back(std::move(mine));
    for (auto& st : b.body) {
      if (auto* l = std::get_if<Label>(&st)) {
        rename(l->name);
        for (auto& t : l->targets) rename(t);
      } else if (auto* in = std::get_if<Instruction>(&st)) {
        for (auto& o : in->operands) operand(o);
      } else if (auto* inner = std::get_if<std::shared_ptr<Block>>(&st)) {
        block(**inner, true);
      }
    }
    env.pop_back();
  }
};

// A label's name as written (without the scope suffix).
std::string written(const std::string& n) {
  const size_t p = n.rfind(kScopeMark);
  return p == std::string::npos ? n : n.substr(0, p);
}

}  // namespace

void Parser::scope_labels(Function& f) {
  if (!f.body) return;
  ScopeLabels s;
  s.count(*f.body);
  s.block(*f.body, false);
}

void Parser::check_function(const Function& f) {
  Walk w;
  w.block(*f.body);
  for (const Label* l : w.dups)
    error(l->loc, fmt::format("duplicate label '{}' (first defined at {})", quote(written(l->name)),
                              loc_text(w.labels.at(l->name))));
  for (const auto& [name, loc] : w.targets)
    if (!w.code_labels.count(name)) error(loc, fmt::format("unknown label '{}'", quote(name)));
  for (const auto& [name, loc] : w.tables) {
    auto it = w.labels.find(name);
    if (it == w.labels.end() || w.code_labels.count(name))
      error(loc, fmt::format("'{}' is not a .branchtargets table", quote(name)));
  }

  // Static shared memory: the function's own variables and the module's
  // .shared variables it names (ptxas: "uses too much shared data").
  const char* kind = f.is_entry ? "entry function" : "function";
  auto over = [&](const std::vector<const VarDecl*>& vars, uint64_t start, uint64_t limit, const char* what,
                  const char* per) {
    uint64_t total = start;
    for (const VarDecl* v : vars) {
      total = align_to(total, std::max<uint32_t>(v->align, 1)) + var_bytes(*v);
      if (total > limit) {
        error(v->loc, fmt::format("{} '{}' uses too much {} data (0x{:x} bytes, 0x{:x} max{})", kind,
                                  quote(f.name), what, total, limit, per));
        return;
      }
    }
  };
  uint64_t module_shared = 0;
  for (const auto& g : mod_.globals)
    if (g.space == Space::Shared && w.symbols.count(g.name))
      module_shared = align_to(module_shared, std::max<uint32_t>(g.align, 1)) + var_bytes(g);
  if (module_shared > kMaxStaticSharedBytes)
    error(f.loc, fmt::format("{} '{}' uses too much shared data (0x{:x} bytes, 0x{:x} max)", kind, quote(f.name),
                             module_shared, kMaxStaticSharedBytes));
  else
    over(w.shared, module_shared, kMaxStaticSharedBytes, "shared", "");
  if (check_local_limit_) over(w.local, 0, kMaxLocalBytesPerThread, "local", " per thread");
}

// ".v3" is not a vector width PTX has (ld, st, mov, tex, ... take .v2/.v4/.v8).
void Parser::check_vector_modifiers(const Token& op, const Instruction& in) {
  size_t offset = in.opcode.size();
  for (const auto& m : in.modifiers) {
    if (m == ".v3") {
      SourceLoc at{op.loc.line, op.loc.col + uint32_t(offset)};
      error(at, kNoV3);
    }
    offset += m.size();
  }
}

// setmaxnreg.{inc,dec}.sync.aligned.u32 n: the ISA requires n to be an
// immediate in 24..256 and a multiple of 8.
void Parser::check_setmaxnreg(const Instruction& in) {
  const Operand& n = in.operands[0];
  if (n.kind != Operand::Kind::Int)
    error(n.loc, "setmaxnreg: the register count must be an integer constant");
  else if (n.ival < 24 || n.ival > 256 || n.ival % 8 != 0)
    error(n.loc, fmt::format("setmaxnreg: register count {} is not a multiple of 8 in the range 24..256", n.ival));
}

// ".maxntid nx, ny, nz" / ".reqntid ...": a CTA has at most 1024 threads,
// 1024 in x and y and 64 in z (every sm_XX PTX targets), and none of its
// dimensions is empty.
void Parser::check_ntid(const Token& dir, const std::vector<uint64_t>& dims) {
  static constexpr uint64_t kDimMax[] = {kMaxThreadsPerCta, kMaxThreadsPerCta, 64};
  static constexpr char kAxis[] = {'x', 'y', 'z'};
  std::string written;
  uint64_t product = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    written += fmt::format("{}{}", i ? ", " : " ", dims[i]);
    product = dims[i] > kMaxThreadsPerCta ? kMaxThreadsPerCta + 1 : std::min(product * dims[i], kMaxThreadsPerCta + 1);
  }
  const std::string what = fmt::format("'{}{}'", dir.text, written);
  for (uint64_t d : dims)
    if (d == 0) return error(dir.loc, fmt::format("{}: a CTA dimension is at least 1", what));
  if (product > kMaxThreadsPerCta)
    return error(dir.loc, fmt::format("{}: more than the {} threads a CTA can have", what, kMaxThreadsPerCta));
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] > kDimMax[i])
      return error(dir.loc, fmt::format("{}: a CTA has at most {} threads in {}", what, kDimMax[i], kAxis[i]));
}

// A kernel's parameters, laid out as the decoder does (each at its
// alignment), fit in kMaxKernelParamBytes. Reported at the first parameter
// that ends past it.
void Parser::check_kernel_params(const Function& f) {
  uint64_t end = 0;
  const VarDecl* first_over = nullptr;
  for (const auto& p : f.params) {
    uint64_t a = p.align ? p.align : std::max<uint64_t>(type_bytes(p.type), 1);
    end = std::min(align_to(end, a) + var_bytes(p), uint64_t(1) << 62);
    if (end > kMaxKernelParamBytes && !first_over) first_over = &p;
  }
  if (first_over)
    error(first_over->loc, fmt::format("entry function '{}' has {} bytes of parameters ({} of them), more than the "
                                       "{} a kernel can take",
                                       quote(f.name), end, f.params.size(), kMaxKernelParamBytes));
}

}  // namespace softgpu::ptx::detail
