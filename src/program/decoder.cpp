// AST -> decoded Program. See decoder.h.
#include "program/decoder.h"
#include "program/facts.h"
#include "program/mma_form.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <map>
#include <set>

namespace softgpu::program {
namespace {

using isa::Opcode;
using OK = Operand::Kind;

uint32_t align_up(uint32_t v, uint32_t a) { return a ? (v + a - 1) / a * a : v; }

uint64_t decl_bytes(const ptx::VarDecl& d) {
  uint64_t n = uint64_t(std::max<uint32_t>(type_size(d.type), 1)) * std::max<uint32_t>(d.vector, 1);
  for (const auto& dim : d.dims) n *= dim.value_or(0);
  return n;
}
uint32_t decl_align(const ptx::VarDecl& d) {
  if (d.align) return d.align;
  return std::max<uint32_t>(type_size(d.type) * std::max<uint32_t>(d.vector, 1), 1);
}

const std::map<std::string, Sreg, std::less<>>& sreg_names() {
  static const std::map<std::string, Sreg, std::less<>> m = [] {
    std::map<std::string, Sreg, std::less<>> r{
        {"%tid.x", Sreg::TidX}, {"%tid.y", Sreg::TidY}, {"%tid.z", Sreg::TidZ},
        {"%ntid.x", Sreg::NtidX}, {"%ntid.y", Sreg::NtidY}, {"%ntid.z", Sreg::NtidZ},
        {"%ctaid.x", Sreg::CtaidX}, {"%ctaid.y", Sreg::CtaidY}, {"%ctaid.z", Sreg::CtaidZ},
        {"%nctaid.x", Sreg::NctaidX}, {"%nctaid.y", Sreg::NctaidY}, {"%nctaid.z", Sreg::NctaidZ},
        {"%laneid", Sreg::Laneid}, {"%warpid", Sreg::Warpid}, {"%nwarpid", Sreg::Nwarpid},
        {"%smid", Sreg::Smid}, {"%nsmid", Sreg::Nsmid}, {"%gridid", Sreg::Gridid},
        {"%clock", Sreg::Clock}, {"%clock_hi", Sreg::ClockHi}, {"%clock64", Sreg::Clock64},
        {"%globaltimer", Sreg::Globaltimer}, {"%globaltimer_lo", Sreg::GlobaltimerLo},
        {"%globaltimer_hi", Sreg::GlobaltimerHi}, {"%lanemask_eq", Sreg::LanemaskEq},
        {"%lanemask_lt", Sreg::LanemaskLt}, {"%lanemask_le", Sreg::LanemaskLe},
        {"%lanemask_gt", Sreg::LanemaskGt}, {"%lanemask_ge", Sreg::LanemaskGe},
        {"%dynamic_smem_size", Sreg::DynamicSmemSize}, {"%total_smem_size", Sreg::TotalSmemSize},
        {"WARP_SZ", Sreg::WarpSz},
        {"%cluster_ctarank", Sreg::ClusterCtarank}, {"%cluster_nctarank", Sreg::ClusterNctarank},
        {"%clusterid.x", Sreg::ClusterIdX}, {"%clusterid.y", Sreg::ClusterIdY},
        {"%clusterid.z", Sreg::ClusterIdZ}, {"%nclusterid.x", Sreg::NclusterIdX},
        {"%nclusterid.y", Sreg::NclusterIdY}, {"%nclusterid.z", Sreg::NclusterIdZ},
        {"%cluster_ctaid.x", Sreg::ClusterCtaidX}, {"%cluster_ctaid.y", Sreg::ClusterCtaidY},
        {"%cluster_ctaid.z", Sreg::ClusterCtaidZ}, {"%cluster_nctaid.x", Sreg::ClusterNctaidX},
        {"%cluster_nctaid.y", Sreg::ClusterNctaidY}, {"%cluster_nctaid.z", Sreg::ClusterNctaidZ},
        {"%is_explicit_cluster", Sreg::IsExplicitCluster},
        {"%reserved_smem_offset_begin", Sreg::ReservedSmemBegin},
        {"%reserved_smem_offset_end", Sreg::ReservedSmemEnd},
        {"%reserved_smem_offset_cap", Sreg::ReservedSmemCap},
        {"%reserved_smem_offset_0", Sreg::ReservedSmem0}, {"%reserved_smem_offset_1", Sreg::ReservedSmem1}};
    for (int i = 0; i < 32; ++i) r[fmt::format("%envreg{}", i)] = Sreg(uint8_t(Sreg::Envreg0) + i);
    return r;
  }();
  return m;
}

std::optional<Type> parse_type(std::string_view m) {
  static const std::pair<const char*, Type> types[] = {
      {".pred", Type::Pred}, {".b8", Type::B8}, {".b16", Type::B16}, {".b32", Type::B32},
      {".b64", Type::B64}, {".b128", Type::B128}, {".u8", Type::U8}, {".u16", Type::U16},
      {".u32", Type::U32}, {".u64", Type::U64}, {".s8", Type::S8}, {".s16", Type::S16},
      {".s32", Type::S32}, {".s64", Type::S64}, {".f16", Type::F16}, {".f16x2", Type::F16x2},
      {".bf16", Type::BF16}, {".bf16x2", Type::BF16x2}, {".tf32", Type::TF32}, {".f32", Type::F32},
      {".f64", Type::F64}, {".e4m3", Type::E4M3}, {".e5m2", Type::E5M2},
      {".e4m3x2", Type::E4M3x2}, {".e5m2x2", Type::E5M2x2}};
  for (auto& [n, t] : types)
    if (m == n) return t;
  return std::nullopt;
}

std::optional<Space> parse_space(std::string_view m) {
  if (m == ".global") return Space::Global;
  if (m == ".shared" || m == ".shared::cta" || m == ".shared::cluster") return Space::Shared;
  if (m == ".local") return Space::Local;
  if (m == ".const") return Space::Const;
  if (m == ".param" || m == ".param::entry" || m == ".param::func") return Space::Param;
  if (m == ".tex") return Space::Tex;
  return std::nullopt;
}

// Decodes the dotted words after the mnemonic into typed fields.
void decode_modifiers(Inst& in, const std::vector<std::string>& mods) {
  Modifiers& m = in.m;
  std::vector<Type> types;
  bool space_seen = false;
  const bool atomic_like = in.op == Opcode::Atom || in.op == Opcode::Red || in.op == Opcode::Redux;
  for (const std::string& s : mods) {
    if (auto t = parse_type(s)) { types.push_back(*t); continue; }
    if (auto sp = parse_space(s)) {
      if (!space_seen) m.space = *sp;  // cp.async.shared.global: destination first
      space_seen = true;
      continue;
    }
    static const std::pair<const char*, Round> rounds[] = {
        {".rn", Round::Rn}, {".rz", Round::Rz}, {".rm", Round::Rm}, {".rp", Round::Rp},
        {".rna", Round::Rna}, {".rs", Round::Rs}, {".rni", Round::Rni}, {".rzi", Round::Rzi},
        {".rmi", Round::Rmi}, {".rpi", Round::Rpi}};
    bool done = false;
    for (auto& [n, r] : rounds)
      if (s == n) { m.rnd = r; done = true; }
    if (done) continue;
    static const std::pair<const char*, Cmp> cmps[] = {
        {".eq", Cmp::Eq}, {".ne", Cmp::Ne}, {".lt", Cmp::Lt}, {".le", Cmp::Le}, {".gt", Cmp::Gt},
        {".ge", Cmp::Ge}, {".lo", Cmp::Lo}, {".ls", Cmp::Ls}, {".hi", Cmp::Hi}, {".hs", Cmp::Hs},
        {".equ", Cmp::Equ}, {".neu", Cmp::Neu}, {".ltu", Cmp::Ltu}, {".leu", Cmp::Leu},
        {".gtu", Cmp::Gtu}, {".geu", Cmp::Geu}, {".num", Cmp::Num}, {".nan", Cmp::Nan}};
    const bool is_cmp_op = in.op == Opcode::Setp || in.op == Opcode::Set || in.op == Opcode::Slct;
    if (is_cmp_op) {
      for (auto& [n, c] : cmps)
        if (s == n) { m.cmp = c; done = true; }
      if (done) continue;
    }
    if (in.op == Opcode::Mul || in.op == Opcode::Mad || in.op == Opcode::Mul24 || in.op == Opcode::Mad24 ||
        in.op == Opcode::Madc) {
      if (s == ".lo") { m.mul = MulMode::Lo; continue; }
      if (s == ".hi") { m.mul = MulMode::Hi; continue; }
      if (s == ".wide") { m.mul = MulMode::Wide; continue; }
    }
    if (atomic_like) {
      static const std::pair<const char*, AtomOp> aops[] = {
          {".add", AtomOp::Add}, {".min", AtomOp::Min}, {".max", AtomOp::Max}, {".inc", AtomOp::Inc},
          {".dec", AtomOp::Dec}, {".and", AtomOp::And}, {".or", AtomOp::Or}, {".xor", AtomOp::Xor},
          {".exch", AtomOp::Exch}, {".cas", AtomOp::Cas}};
      for (auto& [n, a] : aops)
        if (s == n) { m.atom = a; done = true; }
      if (done) continue;
    } else {
      if (s == ".and") { m.boolop = BoolOp::And; continue; }
      if (s == ".or") { m.boolop = BoolOp::Or; continue; }
      if (s == ".xor") { m.boolop = BoolOp::Xor; continue; }
    }
    if (in.op == Opcode::Shfl) {
      if (s == ".up") { m.shfl = ShflMode::Up; continue; }
      if (s == ".down") { m.shfl = ShflMode::Down; continue; }
      if (s == ".bfly") { m.shfl = ShflMode::Bfly; continue; }
      if (s == ".idx") { m.shfl = ShflMode::Idx; continue; }
    }
    if (in.op == Opcode::Vote || in.op == Opcode::Match) {
      if (s == ".all") { m.vote = VoteMode::All; continue; }
      if (s == ".any") { m.vote = VoteMode::Any; continue; }
      if (s == ".uni") { m.vote = VoteMode::Uni; continue; }
      if (s == ".ballot") { m.vote = VoteMode::Ballot; continue; }
    }
    if (s == ".v2") { m.vec = 2; continue; }
    if (s == ".v4") { m.vec = 4; continue; }
    if (s == ".v8") { m.vec = 8; continue; }
    static const std::pair<const char*, bool Modifiers::*> flags[] = {
        {".ftz", &Modifiers::ftz}, {".sat", &Modifiers::sat}, {".approx", &Modifiers::approx},
        {".full", &Modifiers::full}, {".to", &Modifiers::to}, {".uni", &Modifiers::uni},
        {".nc", &Modifiers::nc}, {".relu", &Modifiers::relu}, {".clamp", &Modifiers::clamp},
        {".wrap", &Modifiers::wrap}, {".shiftamt", &Modifiers::shiftamt}, {".cc", &Modifiers::cc},
        {".sync", &Modifiers::sync}, {".aligned", &Modifiers::aligned}, {".arrive", &Modifiers::arrive},
        {".red", &Modifiers::red}, {".noftz", &Modifiers::noftz}};
    static const std::pair<const char*, uint8_t> bits[] = {{".l", Modifiers::kLeft}, {".r", Modifiers::kRight},
        {".warp", Modifiers::kWarp}, {".cluster", Modifiers::kCluster}, {".popc", Modifiers::kPopc}};
    for (auto& [n, b] : bits)
      if (s == n) { m.bits |= b; done = true; }
    for (auto& [n, f] : flags)
      if (s == n) { m.*f = true; done = true; }
    // Everything else (cache hints, scopes, memory orders, tensor shapes)
    // stays in raw_mods for the handlers that care.
  }
  if (!types.empty()) in.type = types[0];
  if (types.size() > 1) in.type2 = types[1];
  if (in.op == Opcode::Mma) in.aux = pack_mma_form(parse_mma_form(mods));  // program/mma_form.h
}

// A name visible in a scope.
struct Sym {
  enum class Kind : uint8_t { RegRange, PredRange, Shared, Local, FParam, KParam } kind;
  uint32_t base = 0;   // slot or offset
  uint32_t count = 1;  // RegRange/PredRange: how many registers (%r<N>); 0 = single named reg
};

class FunctionDecoder {
 public:
  FunctionDecoder(const ptx::Module& mod, const ptx::Function& fn, Function& out, const DecodeInput& in,
                  const std::unordered_map<std::string, uint32_t>& module_shared,
                  const std::unordered_map<std::string, uint32_t>& fn_index, uint32_t& shared_cursor,
                  const std::unordered_map<uint32_t, uint32_t>& source_files, std::vector<ptx::Diagnostic>& diags)
      : mod_(mod), fn_(fn), out_(out), in_(in), module_shared_(module_shared), fn_index_(fn_index),
        shared_cursor_(shared_cursor), source_files_(source_files), diags_(diags) {}

  void run() {
    scopes_.emplace_back();
    // Parameters: kernels read a uniform buffer; functions a per-lane area.
    uint32_t off = 0;
    for (const auto& p : fn_.params) {
      uint32_t sz = uint32_t(decl_bytes(p)), al = decl_align(p);
      off = align_up(off, al);
      scopes_.back()[p.name] = Sym{fn_.is_entry ? Sym::Kind::KParam : Sym::Kind::FParam, off, 1};
      if (fn_.is_entry) out_.kernel_params.emplace_back(off, sz, al);
      else out_.formal_params.emplace_back(off, sz);
      off += sz;
    }
    if (fn_.is_entry) { out_.kernel_param_bytes = off; off = 0; }
    for (const auto& r : fn_.returns) {
      uint32_t sz = uint32_t(decl_bytes(r));
      off = align_up(off, decl_align(r));
      scopes_.back()[r.name] = Sym{Sym::Kind::FParam, off, 1};
      out_.formal_returns.emplace_back(off, sz);
      off += sz;
    }
    param_cursor_ = max_param_ = off;
    if (!fn_.body) { out_.param_bytes = align_up(max_param_, 8); return; }
    collect_labels(*fn_.body);
    walk(*fn_.body);
    out_.param_bytes = align_up(max_param_, 8);
    out_.local_bytes = align_up(local_cursor_, 16);
    // Branch targets.
    for (auto& [pc, label, loc] : pending_branches_) {
      auto it = labels_.find(label);
      if (it == labels_.end()) { error(loc, fmt::format("unknown label '{}'", label)); continue; }
      out_.code[pc].target = it->second;
    }
    for (auto& [idx, names, loc] : pending_tables_) {
      for (const auto& n : names) {
        auto it = labels_.find(n);
        if (it == labels_.end()) { error(loc, fmt::format("unknown label '{}'", n)); continue; }
        out_.branch_tables[idx].push_back(it->second);
      }
    }
  }

 private:
  void error(ptx::SourceLoc loc, std::string msg) {
    diags_.push_back({ptx::Severity::Error, mod_.filename, loc, std::move(msg)});
  }

  void collect_labels(const ptx::Block& b) {
    for (const auto& st : b.body) {
      if (auto* l = std::get_if<ptx::Label>(&st)) {
        if (l->kind == ptx::Label::Kind::BranchTargets) branch_targets_[l->name] = l->targets;
        else if (l->kind == ptx::Label::Kind::Plain) labels_[l->name] = label_pc_;
      }
      else if (std::holds_alternative<ptx::Instruction>(st)) ++label_pc_;
      else if (auto* blk = std::get_if<std::shared_ptr<ptx::Block>>(&st)) collect_labels(**blk);
    }
  }

  void declare(const ptx::VarDecl& d) {
    auto& scope = scopes_.back();
    switch (d.space) {
      case Space::Reg: {
        bool pred = d.type == Type::Pred;
        uint32_t n = d.reg_count.value_or(0);
        uint32_t slots = std::max<uint32_t>(n, 1) * (pred ? 1 : std::max<uint32_t>(d.vector, 1));
        uint32_t& cursor = pred ? out_.num_preds : out_.num_regs;
        scope[d.name] = Sym{pred ? Sym::Kind::PredRange : Sym::Kind::RegRange, cursor, n};
        cursor += slots;
        break;
      }
      case Space::Local: {
        local_cursor_ = align_up(local_cursor_, decl_align(d));
        scope[d.name] = Sym{Sym::Kind::Local, local_cursor_, 1};
        // Saturates: a frame past 4 GB must still read as too big at launch.
        local_cursor_ = uint32_t(std::min<uint64_t>(uint64_t(local_cursor_) + decl_bytes(d), 0xffff'0000u));
        break;
      }
      case Space::Shared: {
        if (!d.dims.empty() && !d.dims.back()) {  // extern dynamic array
          scope[d.name] = Sym{Sym::Kind::Shared, 0xffffffffu, 1};
          break;
        }
        shared_cursor_ = align_up(shared_cursor_, decl_align(d));
        scope[d.name] = Sym{Sym::Kind::Shared, shared_cursor_, 1};
        shared_cursor_ += uint32_t(decl_bytes(d));
        out_.own_shared_bytes = align_up(out_.own_shared_bytes, decl_align(d)) + uint32_t(decl_bytes(d));
        break;
      }
      case Space::Param: {
        param_cursor_ = align_up(param_cursor_, decl_align(d));
        scope[d.name] = Sym{Sym::Kind::FParam, param_cursor_, 1};
        param_cursor_ += uint32_t(decl_bytes(d));
        max_param_ = std::max(max_param_, param_cursor_);
        break;
      }
      default:
        error(d.loc, fmt::format("'{}': this kind of declaration is not supported inside a function", d.name));
    }
  }

  void walk(const ptx::Block& b) {
    for (const auto& st : b.body) {
      if (auto* d = std::get_if<ptx::VarDecl>(&st)) declare(*d);
      else if (auto* ins = std::get_if<ptx::Instruction>(&st)) instruction(*ins);
      else if (auto* blk = std::get_if<std::shared_ptr<ptx::Block>>(&st)) {
        scopes_.emplace_back();
        uint32_t saved_param = param_cursor_;
        walk(**blk);
        param_cursor_ = saved_param;  // call-site params are scoped to their block
        scopes_.pop_back();
      }
    }
  }

  const Sym* lookup(const std::string& name, uint32_t* index) {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->find(name);
      if (f != it->end()) { *index = 0; return &f->second; }
    }
    // "%r15" -> range "%r" index 15.
    size_t i = name.size();
    while (i > 0 && std::isdigit(static_cast<unsigned char>(name[i - 1]))) --i;
    if (i == name.size() || i == 0) return nullptr;
    std::string prefix = name.substr(0, i);
    uint32_t num = 0;
    auto [p, ec] = std::from_chars(name.data() + i, name.data() + name.size(), num);
    if (ec != std::errc()) return nullptr;
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->find(prefix);
      if (f != it->end() && f->second.count > 0 && num < f->second.count) { *index = num; return &f->second; }
    }
    return nullptr;
  }

  // Module-level or cross-module symbol value: global/const address or shared offset.
  std::optional<int64_t> module_symbol(const std::string& name) {
    auto s = module_shared_.find(name);
    if (s != module_shared_.end()) {
      out_.module_shared_refs.push_back(name);
      return s->second == 0xffffffffu ? kDynamicSharedMarker : int64_t(s->second);
    }
    auto g = in_.variable_addresses->find(name);
    if (g != in_.variable_addresses->end()) return int64_t(g->second);
    return std::nullopt;
  }

  Operand operand(const ptx::Operand& a, const Inst& in, bool is_target) {
    Operand o;
    switch (a.kind) {
      case ptx::Operand::Kind::Int: o.kind = OK::Imm; o.imm = a.ival; return o;
      case ptx::Operand::Kind::Float: {
        o.kind = OK::Imm;
        if (a.is_f64 && in.type == Type::F32) {  // 0d literal in an f32 context
          double d; std::memcpy(&d, &a.fbits, 8);
          float f = float(d); uint32_t b; std::memcpy(&b, &f, 4); o.imm = b;
        } else if (!a.is_f64 && in.type == Type::F64) {
          uint32_t b = uint32_t(a.fbits); float f; std::memcpy(&f, &b, 4);
          double d = f; uint64_t bb; std::memcpy(&bb, &d, 8); o.imm = int64_t(bb);
        } else {
          o.imm = int64_t(a.fbits);
        }
        return o;
      }
      case ptx::Operand::Kind::Sink: o.kind = OK::Sink; return o;
      case ptx::Operand::Kind::Register:
      case ptx::Operand::Kind::Symbol: {
        if (auto sr = sreg_names().find(a.name); sr != sreg_names().end()) {
          o.kind = OK::Sreg; o.sreg = sr->second;
          if (o.sreg >= Sreg::ReservedSmemBegin && o.sreg <= Sreg::ReservedSmem1) out_.uses_reserved_smem = true;
          if (is_clock(o.sreg)) out_.reads_clock = true;
          return o;
        }
        uint32_t idx = 0;
        if (const Sym* s = lookup(a.name, &idx)) {
          switch (s->kind) {
            case Sym::Kind::RegRange: o.kind = OK::Reg; o.reg = s->base + idx; return o;
            case Sym::Kind::PredRange: o.kind = OK::Pred; o.reg = s->base + idx; o.negate = a.negate; return o;
            case Sym::Kind::Shared: o.kind = OK::Imm; o.imm = shared_value(*s) + a.ival; return o;
            case Sym::Kind::Local: o.kind = OK::FrameAddr; o.imm = s->base + a.ival; return o;
            case Sym::Kind::KParam: o.kind = OK::KParamAddr; o.imm = s->base + a.ival; return o;
            case Sym::Kind::FParam:
              error(a.loc, fmt::format("the address of function parameter '{}' cannot be taken", a.name));
              return o;
          }
        }
        if (is_target) {  // label
          o.kind = OK::Imm;
          return o;
        }
        if (auto v = module_symbol(a.name)) { o.kind = OK::Imm; o.imm = *v + a.ival; return o; }
        if (auto f = fn_index_.find(a.name); f != fn_index_.end()) {
          o.kind = OK::Imm; o.imm = int64_t(kFunctionAddressBase + f->second); return o;
        }
        if (labels_.count(a.name)) { o.kind = OK::Imm; o.imm = labels_[a.name]; return o; }
        error(a.loc, fmt::format("unknown symbol '{}'", a.name));
        return o;
      }
      case ptx::Operand::Kind::Address: {
        o.kind = OK::Addr;
        o.imm = a.ival;
        if (!a.list.empty()) {  // texture/surface coordinates: "[handle, {x, y}]"
          std::vector<Operand> elems;
          for (const auto& e : a.list) elems.push_back(operand(e, in, false));
          o.vec_begin = uint32_t(out_.vec_operands.size());
          o.vec_n = uint8_t(elems.size());
          out_.vec_operands.insert(out_.vec_operands.end(), elems.begin(), elems.end());
        }
        if (a.name.empty()) return o;
        uint32_t idx = 0;
        const Sym* s = lookup(a.name, &idx);
        if (s && s->kind == Sym::Kind::RegRange) { o.reg = s->base + idx; return o; }
        if (s && s->kind == Sym::Kind::Shared) { o.imm += shared_value(*s); return o; }
        if (s && s->kind == Sym::Kind::Local) { o.addr_kind = Operand::AddrKind::Frame; o.imm += s->base; return o; }
        if (s && s->kind == Sym::Kind::KParam) { o.addr_kind = Operand::AddrKind::KParam; o.imm += s->base; return o; }
        if (s && s->kind == Sym::Kind::FParam) { o.addr_kind = Operand::AddrKind::FParam; o.imm += s->base; return o; }
        if (s) { error(a.loc, fmt::format("'{}' cannot be used as an address", a.name)); return o; }
        if (auto v = module_symbol(a.name)) { o.imm += *v; return o; }
        error(a.loc, fmt::format("unknown symbol '{}'", a.name));
        return o;
      }
      case ptx::Operand::Kind::Vector: {
        o.kind = OK::Vec;
        o.vec_begin = uint32_t(out_.vec_operands.size());
        o.vec_n = uint8_t(std::min<size_t>(a.list.size(), 255));
        std::vector<Operand> elems;
        for (const auto& e : a.list) elems.push_back(operand(e, in, false));
        out_.vec_operands.insert(out_.vec_operands.end(), elems.begin(), elems.end());
        return o;
      }
      case ptx::Operand::Kind::List:
        error(a.loc, "unexpected operand list");
        return o;
    }
    return o;
  }

  int64_t shared_value(const Sym& s) {
    // Extern (dynamic) shared arrays all start at the program's dynamic offset,
    // patched after every function is decoded.
    if (s.base == 0xffffffffu) return kDynamicSharedMarker;
    return s.base;
  }

  void call(const ptx::Instruction& src, Inst& in) {
    CallSite cs;
    size_t i = 0;
    auto params_of = [&](const ptx::Operand& list, std::vector<std::pair<uint32_t, uint32_t>>& dst) {
      for (const auto& e : list.list) {
        uint32_t idx = 0;
        const Sym* s = lookup(e.name, &idx);
        if (!s || s->kind != Sym::Kind::FParam) {
          error(e.loc, fmt::format("call argument '{}' is not a .param variable", e.name));
          continue;
        }
        dst.emplace_back(s->base, 0);
      }
    };
    const auto& ops = src.operands;
    if (i < ops.size() && ops[i].kind == ptx::Operand::Kind::List) params_of(ops[i++], cs.rets);
    if (i >= ops.size()) { error(src.loc, "call without a target"); return; }
    const auto& tgt = ops[i++];
    uint32_t idx = 0;
    const Sym* s = tgt.kind == ptx::Operand::Kind::Register ? lookup(tgt.name, &idx) : nullptr;
    if (s && s->kind == Sym::Kind::RegRange) {
      cs.indirect = true;
      cs.target_reg = s->base + idx;
    } else {
      auto f = fn_index_.find(tgt.name);
      if (f == fn_index_.end()) { error(tgt.loc, fmt::format("call to unknown function '{}'", tgt.name)); return; }
      in.target = f->second;
    }
    if (i < ops.size() && ops[i].kind == ptx::Operand::Kind::List) params_of(ops[i++], cs.args);
    in.aux = uint32_t(out_.calls.size());
    out_.calls.push_back(std::move(cs));
  }

  // wgmma.mma_async d, a, b, {sp-meta, sp-sel,} scale-d, imm-scale-a, imm-scale-b{, imm-trans-a}{, imm-trans-b}:
  // the first four (six: .sp) are operands, the trailing immediates go to aux.
  static size_t wgmma_fixed(const ptx::Instruction& src) {
    const auto& m = src.modifiers;
    return std::find(m.begin(), m.end(), ".sp") != m.end() ? kWgmmaSparseOperands : kWgmmaOperands;
  }
  void wgmma_operands(const ptx::Instruction& src, Inst& in) {
    const size_t fixed = wgmma_fixed(src);
    in.nops = uint8_t(fixed);
    for (size_t i = 0; i < fixed; ++i) in.o[i] = operand(src.operands[i], in, false);
    const size_t extra = src.operands.size() - fixed;
    if (extra > kWgmmaMaxImms) { error(src.loc, "too many operands"); return; }
    in.aux = uint32_t(extra) << kWgmmaCountShift;
    for (size_t i = 0; i < extra; ++i) {
      const ptx::Operand& a = src.operands[fixed + i];
      if (a.kind != ptx::Operand::Kind::Int || a.ival < -1 || a.ival > 1) {
        error(a.loc, fmt::format("wgmma.mma_async operand {} must be an integer constant (imm-scale: 1 or -1, "
                                 "imm-trans: 0 or 1)",
                                 fixed + i + 1));
        return;
      }
      in.aux |= uint32_t(a.ival + 1) << (2 * i);
    }
  }

  void instruction(const ptx::Instruction& src) {
    Inst in;
    in.line = src.loc.line;
    auto op = isa::find_opcode(src.opcode);
    if (!op || src.not_implemented) {
      // Nothing of it is decoded (its operands may be of any shape): it
      // stands in the code so that a kernel reaching it fails at launch.
      in.op = Opcode::Unimplemented;
      in.raw_mods.push_back(src.opcode);
      in.raw_mods.insert(in.raw_mods.end(), src.modifiers.begin(), src.modifiers.end());
      const uint32_t pc = uint32_t(out_.code.size());
      out_.unimplemented.push_back(pc);
      source_location(src, in, pc);
      out_.code.push_back(std::move(in));
      return;
    }
    in.op = *op;
    in.raw_mods = src.modifiers;
    decode_modifiers(in, src.modifiers);
    if (src.guard) {
      uint32_t idx = 0;
      const Sym* s = lookup(*src.guard, &idx);
      if (!s || s->kind != Sym::Kind::PredRange) error(src.loc, fmt::format("guard '{}' is not a predicate", *src.guard));
      else { in.has_guard = true; in.guard = s->base + idx; in.guard_neg = src.guard_negated; }
    }
    const uint32_t pc = uint32_t(out_.code.size());
    if (in.op == Opcode::Call) {
      call(src, in);
    } else if (in.op == Opcode::Bra) {
      if (src.operands.size() != 1 || src.operands[0].kind != ptx::Operand::Kind::Symbol)
        error(src.loc, "bra needs a label");
      else pending_branches_.emplace_back(pc, src.operands[0].name, src.loc);
    } else if (in.op == Opcode::Brx) {
      // brx.idx %r, table: the table is a .branchtargets label list; the
      // parser reports it as a Label operand list in the second operand.
      in.o[0] = operand(src.operands[0], in, false);
      in.aux = uint32_t(out_.branch_tables.size());
      out_.branch_tables.emplace_back();
      std::vector<std::string> names;
      if (src.operands.size() > 1) {
        const auto& t = src.operands[1];
        if (t.kind == ptx::Operand::Kind::List || t.kind == ptx::Operand::Kind::Vector)
          for (const auto& e : t.list) names.push_back(e.name);
        else if (auto bt = branch_targets_.find(t.name); bt != branch_targets_.end()) names = bt->second;
        else error(t.loc, fmt::format("unknown branch table '{}'", t.name));
      }
      pending_tables_.emplace_back(in.aux, names, src.loc);
      in.nops = 1;
    } else if (in.op == Opcode::Wgmma && src.operands.size() > wgmma_fixed(src)) {
      wgmma_operands(src, in);
    } else {
      size_t n = std::min<size_t>(src.operands.size(), Inst::kPairSlot);
      in.nops = uint8_t(n);
      for (size_t i = 0; i < n; ++i) {
        in.o[i] = operand(src.operands[i], in, false);
        if (src.operands[i].pair) in.o[Inst::kPairSlot] = operand(*src.operands[i].pair, in, false);
      }
      if (src.operands.size() > size_t(Inst::kPairSlot)) error(src.loc, "too many operands");
    }
    source_location(src, in, pc);
    out_.code.push_back(std::move(in));
  }

  // .loc: the CUDA line, and for inlined code the outermost call site. A
  // file number no .file declares gives no location (the parser warned), and
  // so does line 0 (DWARF's "no source line": code nvcc -G attributes to none).
  std::optional<SourceLine> source_line(const ptx::DebugLoc& l) const {
    auto it = source_files_.find(l.file);
    if (it == source_files_.end() || l.line == 0) return std::nullopt;
    return SourceLine{it->second, l.line, l.col};
  }
  void source_location(const ptx::Instruction& src, Inst& in, uint32_t pc) {
    if (!src.debug_loc) return;
    auto here = source_line(*src.debug_loc);
    if (!here || here->file >= 0xffffu) return;
    in.src_file = uint16_t(here->file + 1);
    in.src_line = here->line;
    in.src_col = uint16_t(std::min<uint32_t>(here->col, 0xffffu));
    if (src.inlined_at)
      if (auto site = source_line(*src.inlined_at)) out_.inlined_at.emplace_back(pc, *site);
  }

 public:
  static constexpr int64_t kDynamicSharedMarker = int64_t(0x7fff'fff0'0000'0000ll);
  std::unordered_map<std::string, std::vector<std::string>> branch_targets_;

 private:
  const ptx::Module& mod_;
  const ptx::Function& fn_;
  Function& out_;
  const DecodeInput& in_;
  const std::unordered_map<std::string, uint32_t>& module_shared_;
  const std::unordered_map<std::string, uint32_t>& fn_index_;
  uint32_t& shared_cursor_;
  const std::unordered_map<uint32_t, uint32_t>& source_files_;  // .file number -> Program::source_files index
  std::vector<ptx::Diagnostic>& diags_;
  std::vector<std::unordered_map<std::string, Sym>> scopes_;
  std::unordered_map<std::string, uint32_t> labels_;
  uint32_t label_pc_ = 0;
  uint32_t local_cursor_ = 0;
  uint32_t param_cursor_ = 0, max_param_ = 0;
  std::vector<std::tuple<uint32_t, std::string, ptx::SourceLoc>> pending_branches_;
  std::vector<std::tuple<uint32_t, std::vector<std::string>, ptx::SourceLoc>> pending_tables_;
};

}  // namespace

void decode_instruction_modifiers(Inst& in, const std::vector<std::string>& mods) { decode_modifiers(in, mods); }

bool decode(const DecodeInput& in, Program& out, std::vector<ptx::Diagnostic>& diags) {
  const size_t errors_before = diags.size();
  // 1. Function table, linked by name: a definition wins over declarations.
  struct Src { const ptx::Module* mod; const ptx::Function* fn; };
  std::vector<Src> srcs;
  for (const auto& mod : *in.modules) {
    if (mod.version_major * 10 + mod.version_minor > out.ptx_version)
      out.ptx_version = mod.version_major * 10 + mod.version_minor;
    if (mod.target.size() > 3 && mod.target.rfind("sm_", 0) == 0)
      out.sm_target = std::max<uint32_t>(out.sm_target, uint32_t(std::atoi(mod.target.c_str() + 3)));
    for (const auto& fn : mod.functions) {
      auto it = out.function_index.find(fn.name);
      if (it == out.function_index.end()) {
        out.function_index[fn.name] = uint32_t(srcs.size());
        srcs.push_back({&mod, &fn});
      } else if (fn.body) {
        Src& prev = srcs[it->second];
        if (prev.fn->body && fn.linkage != ptx::Linkage::Weak && prev.fn->linkage != ptx::Linkage::Weak) {
          diags.push_back({ptx::Severity::Error, mod.filename, fn.loc,
                           fmt::format("function '{}' is defined twice", fn.name)});
        } else if (!prev.fn->body) {
          prev = {&mod, &fn};
        }
      }
    }
  }
  // 2. Module-scope shared variables: one layout from offset 0.
  std::unordered_map<std::string, uint32_t> module_shared;
  uint32_t cursor = 0;
  bool dynamic = false;
  for (const auto& mod : *in.modules)
    for (const auto& g : mod.globals) {
      if (g.space != Space::Shared) continue;
      if (!g.dims.empty() && !g.dims.back()) {
        dynamic = true;
        module_shared[g.name] = 0xffffffffu;
        continue;
      }
      if (module_shared.count(g.name)) continue;
      cursor = align_up(cursor, decl_align(g));
      module_shared[g.name] = cursor;
      cursor += uint32_t(decl_bytes(g));
    }
  // CUDA source files: one table for the program, a name once.
  std::unordered_map<const ptx::Module*, std::unordered_map<uint32_t, uint32_t>> source_files;
  {
    std::unordered_map<std::string, uint32_t> by_name;
    for (const auto& mod : *in.modules)
      for (const auto& [number, name] : mod.files) {
        auto [it, fresh] = by_name.try_emplace(name, uint32_t(out.source_files.size()));
        if (fresh) out.source_files.push_back(name);
        source_files[&mod].try_emplace(number, it->second);
      }
  }
  // 3. Decode every function. Function-local .shared continues the layout.
  out.functions.resize(srcs.size());
  for (size_t i = 0; i < srcs.size(); ++i) {
    Function& f = out.functions[i];
    const ptx::Function& fn = *srcs[i].fn;
    f.name = fn.name;
    f.is_entry = fn.is_entry;
    f.line = fn.loc.line;
    f.is_extern = !fn.body;
    if (f.is_extern) {
      if (fn.name == "vprintf") f.builtin = Function::Builtin::Vprintf;
      else if (fn.name == "malloc") f.builtin = Function::Builtin::Malloc;
      else if (fn.name == "free") f.builtin = Function::Builtin::Free;
      else if (fn.name == "__assertfail") f.builtin = Function::Builtin::Assertfail;
    }
    for (const auto& [k, v] : fn.directives) {
      if ((k == "maxntid" || k == "reqntid") && !v.empty()) {
        uint64_t p = 1;
        for (auto x : v) p *= x;
        f.max_threads = uint32_t(std::min<uint64_t>(p, UINT32_MAX));
      } else if (k == "reqnctapercluster" && !v.empty()) {
        for (size_t d = 0; d < 3; ++d) f.cluster_dims[d] = d < v.size() ? uint32_t(std::min<uint64_t>(v[d], 1024)) : 1;
        f.explicit_cluster = true;
      } else if (k == "explicitcluster") {
        f.explicit_cluster = true;
      }
    }
    FunctionDecoder d(*srcs[i].mod, fn, f, in, module_shared, out.function_index, cursor, source_files[srcs[i].mod],
                      diags);
    d.run();
    if (f.is_extern && f.builtin == Function::Builtin::None)
      diags.push_back({ptx::Severity::Error, srcs[i].mod->filename, fn.loc,
                       fmt::format("function '{}' is declared but never defined", fn.name)});
  }
  out.static_shared_bytes = cursor;
  // Per kernel: the .shared it can reach through its calls (for launch limits
  // and occupancy; the executor's layout stays one for the whole program).
  std::unordered_map<std::string, uint32_t> shared_size;
  for (const auto& mod : *in.modules)
    for (const auto& g : mod.globals)
      if (g.space == Space::Shared && !(!g.dims.empty() && !g.dims.back()))
        shared_size[g.name] = uint32_t(decl_bytes(g));
  for (auto& k : out.functions) {
    if (!k.is_entry) continue;
    std::vector<uint8_t> seen(out.functions.size(), 0);
    std::vector<uint32_t> work{out.function_index[k.name]};
    std::set<std::string> refs;
    uint32_t total = 0;
    while (!work.empty()) {
      uint32_t fi = work.back();
      work.pop_back();
      if (seen[fi]) continue;
      seen[fi] = 1;
      const Function& f = out.functions[fi];
      total += f.own_shared_bytes;
      refs.insert(f.module_shared_refs.begin(), f.module_shared_refs.end());
      for (const auto& inst : f.code)
        if (inst.op == Opcode::Call && !f.calls.empty() && !f.calls[inst.aux].indirect) work.push_back(inst.target);
    }
    for (const auto& r : refs)
      if (auto it = shared_size.find(r); it != shared_size.end()) total += it->second;
    k.static_shared_bytes = total;
  }
  out.has_dynamic_shared = dynamic;
  out.dynamic_shared_offset = align_up(cursor, 16);
  // 4. Patch dynamic shared references and compute reconvergence points.
  for (auto& f : out.functions) {
    auto patch = [&](Operand& o) {
      if ((o.kind == OK::Imm || o.kind == OK::Addr) && o.imm >= FunctionDecoder::kDynamicSharedMarker &&
          o.imm < FunctionDecoder::kDynamicSharedMarker + (int64_t(1) << 32))
        o.imm = o.imm - FunctionDecoder::kDynamicSharedMarker + out.dynamic_shared_offset;
    };
    for (auto& inst : f.code)
      for (auto& o : inst.o) patch(o);
    for (auto& o : f.vec_operands) patch(o);
    compute_facts(f);
    if (contract_mul_add(f)) compute_facts(f);
    if (f.code.empty()) continue;
    auto ipdom = immediate_post_dominators(f);
    for (uint32_t pc = 0; pc < f.code.size(); ++pc) f.code[pc].reconv = ipdom[pc];
    find_undefined_reads(f);
  }
  return diags.size() == errors_before || !ptx::has_errors({diags.begin() + long(errors_before), diags.end()});
}

}  // namespace softgpu::program
