// Module-level parsing: header directives, functions, declarations.
#include <algorithm>
#include <bit>
#include <cstring>

#include <fmt/format.h>

#include "ptx/parser_impl.h"

namespace softgpu::ptx {
namespace detail {
namespace {

struct TypeName {
  std::string_view name;
  Type type;
};
constexpr TypeName kTypes[] = {
    {".pred", Type::Pred}, {".b8", Type::B8},       {".b16", Type::B16},       {".b32", Type::B32},
    {".b64", Type::B64},   {".b128", Type::B128},   {".u8", Type::U8},         {".u16", Type::U16},
    {".u32", Type::U32},   {".u64", Type::U64},     {".s8", Type::S8},         {".s16", Type::S16},
    {".s32", Type::S32},   {".s64", Type::S64},     {".f16", Type::F16},       {".f16x2", Type::F16x2},
    {".bf16", Type::BF16}, {".bf16x2", Type::BF16x2}, {".tf32", Type::TF32},   {".f32", Type::F32},
    {".f64", Type::F64},   {".e4m3", Type::E4M3},   {".e5m2", Type::E5M2},     {".e4m3x2", Type::E4M3x2},
    {".e5m2x2", Type::E5M2x2},
};

// The .target words of the PTX ISA 9.0 (".target" directive): architectures
// and the platform and texturing options.
constexpr std::string_view kTargets[] = {
    "sm_10",   "sm_11",   "sm_12",   "sm_13",   "sm_20",   "sm_30",   "sm_32",   "sm_35",   "sm_37",
    "sm_50",   "sm_52",   "sm_53",   "sm_60",   "sm_61",   "sm_62",   "sm_70",   "sm_72",   "sm_75",
    "sm_80",   "sm_86",   "sm_87",   "sm_88",   "sm_89",   "sm_90",   "sm_90a",  "sm_100",  "sm_100a",
    "sm_100f", "sm_101",  "sm_101a", "sm_101f", "sm_103",  "sm_103a", "sm_103f", "sm_110",  "sm_110a",
    "sm_110f", "sm_120",  "sm_120a", "sm_120f", "sm_121",  "sm_121a", "sm_121f"};
constexpr std::string_view kTargetOptions[] = {"texmode_unified", "texmode_independent", "debug", "map_f64_to_f32"};

template <size_t N>
bool listed(const std::string_view (&list)[N], std::string_view s) {
  return std::find(std::begin(list), std::end(list), s) != std::end(list);
}

bool type_of(std::string_view s, Type& out) {
  for (const auto& t : kTypes)
    if (t.name == s) {
      out = t.type;
      return true;
    }
  return false;
}

// Directives that may start a module-level item; recovery stops at them.
bool starts_module_item(const Token& t) {
  static constexpr std::string_view kStarts[] = {
      ".version", ".target", ".address_size", ".visible", ".extern", ".weak", ".common", ".entry",
      ".func",    ".global", ".const",        ".shared",  ".local",  ".file", ".section", ".pragma"};
  if (t.kind != Tok::Directive) return false;
  return std::find(std::begin(kStarts), std::end(kStarts), t.text) != std::end(kStarts);
}

}  // namespace

std::string quote(std::string_view s, size_t max_chars) {
  std::string out;
  size_t n = std::min<size_t>(s.size(), max_chars);
  for (size_t i = 0; i < n; ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7F)
      out += char(c);
    else
      out += fmt::format("\\x{:02x}", c);
  }
  if (s.size() > n) out += "...";
  return out;
}

Parser::Parser(std::string_view text, std::string filename, const ParseOptions& options)
    : text_(text),
      toks_(lex(text)),
      max_errors_(std::max<size_t>(options.max_errors, 1)),
      check_local_limit_(options.check_local_limit),
      accept_newer_version_(options.accept_newer_version) {
  mod_.filename = std::move(filename);
}

const Token& Parser::peek(size_t k) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }

const Token& Parser::next() {
  const Token& t = toks_[pos_];
  if (pos_ + 1 < toks_.size()) ++pos_;
  return t;
}

bool Parser::at_punct(char c, size_t k) const {
  const Token& t = peek(k);
  return t.kind == Tok::Punct && t.punct == c;
}

bool Parser::at_dir(std::string_view d, size_t k) const {
  const Token& t = peek(k);
  return t.kind == Tok::Directive && t.text == d;
}

bool Parser::accept_punct(char c) {
  if (!at_punct(c)) return false;
  next();
  return true;
}

bool Parser::expect_punct(char c, std::string_view context) {
  if (accept_punct(c)) return true;
  // A missing ';' is best reported where it belongs: after the previous token.
  if (c == ';' && pos_ > 0 && !at_eof()) {
    error(end_of_prev(), fmt::format("expected ';' {}", context));
    return false;
  }
  error_at(peek(), fmt::format("expected '{}' {}, found {}", c, context, describe(peek())));
  return false;
}

SourceLoc Parser::end_of_prev() const {
  if (pos_ == 0) return {1, 1};
  const Token& p = toks_[pos_ - 1];
  size_t len = p.text.size() + (p.kind == Tok::String ? 2 : 0);
  return {p.loc.line, static_cast<uint32_t>(p.loc.col + len)};
}

std::string Parser::describe(const Token& t) const {
  switch (t.kind) {
    case Tok::Eof: return "end of file";
    case Tok::String: return "a string";
    case Tok::Error:
      if (t.text == "/*") return "an unterminated '/*' comment";
      [[fallthrough]];
    default: return fmt::format("'{}'", quote(t.text));
  }
}

void Parser::error(SourceLoc loc, std::string msg) {
  if (stopped_) return;
  diags_.push_back({Severity::Error, mod_.filename, loc, std::move(msg)});
  if (++errors_ >= max_errors_) {
    stopped_ = true;
    if (!at_eof()) diags_.push_back({Severity::Note, mod_.filename, loc, "too many errors, stopping"});
  }
}

void Parser::warning(SourceLoc loc, std::string msg) {
  if (stopped_) return;
  diags_.push_back({Severity::Warning, mod_.filename, loc, std::move(msg)});
}

void Parser::not_implemented(SourceLoc loc, std::string msg) {
  if (stopped_) return;
  diags_.push_back({Severity::NotImplemented, mod_.filename, loc, std::move(msg)});
}

void Parser::error_at(const Token& t, std::string msg) {
  if (t.kind == Tok::Eof && pos_ > 0) {
    // Point at the end of the last real token, not at an empty line after it.
    size_t save = pos_;
    while (pos_ > 0 && toks_[pos_].kind == Tok::Eof) --pos_;
    ++pos_;
    SourceLoc l = end_of_prev();
    pos_ = save;
    error(l, std::move(msg));
    return;
  }
  error(t.loc, std::move(msg));
}

void Parser::unexpected(std::string_view expected) {
  const Token& t = peek();
  if (t.kind == Tok::Error && t.text == "/*")
    error_at(t, "unterminated comment: '/*' has no closing '*/'");
  else if (t.kind == Tok::Error)
    error_at(t, fmt::format("invalid token '{}'", quote(t.text)));
  else
    error_at(t, fmt::format("expected {}, found {}", expected, describe(t)));
}

void Parser::sync_statement() {
  while (!at_eof()) {
    if (at_punct('}')) return;
    if (next().kind == Tok::Punct && toks_[pos_ - 1].punct == ';') return;
  }
}

void Parser::sync_module() {
  if (!at_eof()) {
    if (at_punct('{')) skip_braces();
    else next();
  }
  while (!at_eof() && !starts_module_item(peek())) {
    if (at_punct('{')) skip_braces();
    else next();
  }
}

void Parser::skip_line(uint32_t line) {
  while (!at_eof() && peek().loc.line == line) next();
}

bool Parser::skip_braces() {
  size_t depth = 0;
  while (!at_eof()) {
    const Token& t = next();
    if (t.kind != Tok::Punct) continue;
    if (t.punct == '{') ++depth;
    if (t.punct == '}' && --depth == 0) return true;
  }
  return false;
}

ParseResult Parser::run() {
  if (at_eof()) error({1, 1}, "empty file: a PTX module starts with a .version directive");
  while (!stopped_ && !at_eof()) {
    size_t before = pos_;
    parse_module_item();
    if (pos_ == before && !at_eof()) next();  // guarantee progress
  }
  check_loc_files();
  // Function checks run after each body, so put everything in source order;
  // a final "too many errors" note stays last.
  auto last = diags_.end();
  if (!diags_.empty() && diags_.back().severity == Severity::Note) --last;
  std::stable_sort(diags_.begin(), last, [](const Diagnostic& a, const Diagnostic& b) {
    return a.loc.line != b.loc.line ? a.loc.line < b.loc.line : a.loc.col < b.loc.col;
  });
  ParseResult r;
  r.diagnostics = std::move(diags_);
  r.unsupported_version = unsupported_version_;
  if (errors_ == 0) r.module = std::move(mod_);
  return r;
}

void Parser::parse_module_item() {
  const Token& t = peek();
  if (t.kind != Tok::Directive) {
    unexpected("a directive");
    sync_module();
    return;
  }
  std::string_view d = t.text;
  if (d == ".version") return parse_version();
  if (d == ".target") return parse_target();
  if (d == ".address_size") return parse_address_size();
  if (d == ".file") return parse_file();
  if (d == ".section") return parse_section();
  if (d == ".pragma") return parse_pragma();
  if (d == ".loc") return parse_loc();  // outside a function: checked, applies to nothing

  Linkage linkage = Linkage::None;
  if (d == ".visible") linkage = Linkage::Visible;
  else if (d == ".extern") linkage = Linkage::Extern;
  else if (d == ".weak") linkage = Linkage::Weak;
  else if (d == ".common") linkage = Linkage::Common;
  if (linkage != Linkage::None) next();

  if (at_dir(".entry") || at_dir(".func")) return parse_function(linkage);
  Space space;
  if (peek().kind == Tok::Directive && space_of(peek().text, space) && space != Space::Reg &&
      space != Space::Param) {
    next();
    size_t first = mod_.globals.size();
    if (!parse_var_decls(space, mod_.globals)) {
      mod_.globals.resize(first);
      sync_module();
      return;
    }
    mod_.global_linkage.resize(mod_.globals.size(), linkage);
    return;
  }
  if (peek().kind == Tok::Directive)
    error_at(peek(), fmt::format("unknown or misplaced directive '{}'", quote(peek().text)));
  else
    unexpected("'.entry', '.func' or a variable declaration");
  sync_module();
}

void Parser::parse_version() {
  next();
  const Token& t = peek();
  if (t.kind == Tok::Float || t.kind == Tok::Int) {
    // "9.0" lexes as a decimal float: split the spelling, not the value.
    std::string_view s = t.text;
    size_t dot = s.find('.');
    std::string_view maj = s.substr(0, dot), min = dot == s.npos ? "0" : s.substr(dot + 1);
    bool ok = !maj.empty() && maj.size() <= 4 && !min.empty() && min.size() <= 4 &&
              std::all_of(maj.begin(), maj.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
              std::all_of(min.begin(), min.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (ok) {
      const SourceLoc at = next().loc;
      mod_.version_major = uint32_t(std::stoul(std::string(maj)));
      mod_.version_minor = uint32_t(std::stoul(std::string(min)));
      if (!accept_newer_version_ &&
          std::pair(mod_.version_major, mod_.version_minor) > std::pair(kMaxPtxVersionMajor, kMaxPtxVersionMinor)) {
        unsupported_version_ = true;
        error(at, fmt::format("unsupported .version {}.{}: the newest PTX ISA version CUDA 13.0 supports is {}.{}",
                              mod_.version_major, mod_.version_minor, kMaxPtxVersionMajor, kMaxPtxVersionMinor));
      }
      return;
    }
  }
  unexpected("a version number like 8.0");
  sync_module();
}

void Parser::parse_target() {
  next();
  mod_.target.clear();
  mod_.target_options.clear();
  do {
    if (peek().kind != Tok::Ident) {
      unexpected("a target name");
      return sync_module();
    }
    const Token& t = next();
    if (mod_.target.empty()) {
      mod_.target = std::string(t.text);
      if (!listed(kTargets, t.text))
        error(t.loc, fmt::format("unknown target '{}': PTX ISA 9.0 has no such architecture (.target sm_XX as the "
                                 "ISA lists them, e.g. sm_80, sm_90a)",
                                 quote(t.text)));
    } else {
      mod_.target_options.emplace_back(t.text);
      if (!listed(kTargetOptions, t.text))
        error(t.loc, fmt::format("unknown .target option '{}' (texmode_unified, texmode_independent, debug or "
                                 "map_f64_to_f32)",
                                 quote(t.text)));
    }
  } while (accept_punct(','));
}

void Parser::parse_address_size() {
  next();
  const Token& t = peek();
  if (t.kind == Tok::Int && (t.ival == 32 || t.ival == 64)) {
    mod_.address_size = uint32_t(next().ival);
    return;
  }
  unexpected("32 or 64");
  sync_module();
}

void Parser::parse_file() {
  next();
  uint32_t id = 0;
  if (!parse_u32(id, "a file number")) return sync_module();
  if (peek().kind != Tok::String) {
    unexpected("a file name string");
    return sync_module();
  }
  const Token& name = next();
  auto dup = std::find_if(mod_.files.begin(), mod_.files.end(), [&](const auto& f) { return f.first == id; });
  if (dup != mod_.files.end()) {
    SourceLoc first = file_decl_at_[size_t(dup - mod_.files.begin())];
    error(name.loc, fmt::format("duplicate file number {} (first declared at line {})", id, first.line));
  } else {
    mod_.files.emplace_back(id, std::string(name.text));
    file_decl_at_.push_back(name.loc);
  }
  // Optional ", timestamp, size".
  while (accept_punct(',')) {
    if (peek().kind != Tok::Int) {
      unexpected("a number");
      return sync_module();
    }
    next();
  }
}

// "F L C" of a .loc, all on the directive's line.
bool Parser::parse_loc_numbers(DebugLoc& out, uint32_t line) {
  uint32_t* fields[] = {&out.file, &out.line, &out.col};
  static constexpr std::string_view kWhat[] = {"a file number", "a line number", "a column number"};
  for (int i = 0; i < 3; ++i) {
    if (peek().loc.line != line || at_eof()) {
      error(end_of_prev(), fmt::format("expected {} in .loc", kWhat[i]));
      return false;
    }
    if (!parse_u32(*fields[i], fmt::format("{} in .loc", kWhat[i]))) return false;
  }
  return true;
}

void Parser::parse_loc() {
  const uint32_t line = next().loc.line;
  const SourceLoc file_at = peek().loc;
  DebugLoc loc;
  std::optional<DebugLoc> caller;
  auto fail = [&] { skip_line(line); };
  if (!parse_loc_numbers(loc, line)) return fail();
  auto word = [&](std::string_view w) {
    if (peek().loc.line == line && peek().kind == Tok::Ident && peek().text == w) {
      next();
      return true;
    }
    if (peek().loc.line != line || at_eof())
      error(end_of_prev(), fmt::format("expected '{}' in .loc", w));
    else
      unexpected(fmt::format("'{}' in .loc", w));
    return false;
  };
  if (peek().loc.line == line && accept_punct(',')) {
    // PTX ISA "Debugging Directives: .loc": function_name label {+ imm},
    // inlined_at file line col (ptxas wants both, in this order).
    if (!word("function_name")) return fail();
    if (peek().loc.line != line || peek().kind != Tok::Ident) {
      if (peek().loc.line != line) error(end_of_prev(), "expected a .debug_str label after 'function_name'");
      else unexpected("a .debug_str label after 'function_name'");
      return fail();
    }
    next();
    if (peek().loc.line == line && accept_punct('+')) {
      uint32_t off = 0;
      if (!parse_u32(off, "an offset after '+'")) return fail();
    }
    if (peek().loc.line != line || !accept_punct(',')) {
      if (peek().loc.line != line) error(end_of_prev(), "expected ', inlined_at' after the function name in .loc");
      else unexpected("',' before 'inlined_at'");
      return fail();
    }
    if (!word("inlined_at")) return fail();
    DebugLoc at;
    if (!parse_loc_numbers(at, line)) return fail();
    // The call site may itself be inlined code: its own .loc came earlier
    // (ptxas requires it), so follow the chain to the outermost caller.
    auto it = loc_outermost_.find({at.file, at.line, at.col});
    caller = it == loc_outermost_.end() ? at : it->second;
  }
  if (peek().loc.line == line && !at_eof()) {
    error_at(peek(), fmt::format("unexpected {} after .loc", describe(peek())));
    return fail();
  }
  loc_outermost_[{loc.file, loc.line, loc.col}] = caller ? *caller : loc;
  if (caller) loc_file_refs_.try_emplace(caller->file, file_at);
  loc_file_refs_.try_emplace(loc.file, file_at);
  cur_loc_ = loc;
  cur_inlined_ = caller;
}

void Parser::check_loc_files() {
  for (const auto& [number, at] : loc_file_refs_) {
    const uint32_t file = number;  // clang 14 cannot capture a structured binding
    bool known = std::any_of(mod_.files.begin(), mod_.files.end(), [&](const auto& f) { return f.first == file; });
    if (!known)
      warning(at, fmt::format("'.loc' names file {}, which no '.file' directive declares: its source lines are ignored",
                              file));
  }
}

void Parser::parse_section() {
  const Token& sec = next();
  if (peek().kind == Tok::Directive || peek().kind == Tok::Ident) next();  // .debug_info
  if (!at_punct('{')) {
    unexpected("'{' after .section name");
    return sync_module();
  }
  // Debug sections (.b8/.b32 lists, labels) carry nothing the simulator uses.
  if (!skip_braces()) error(sec.loc, "unterminated .section block");
}

void Parser::parse_pragma() {
  next();
  do {
    if (peek().kind != Tok::String) {
      unexpected("a string after .pragma");
      return sync_statement();
    }
    next();
  } while (accept_punct(','));
  if (!expect_punct(';', "after .pragma")) sync_statement();
}

bool Parser::parse_u32(uint32_t& out, std::string_view what) {
  const Token& t = peek();
  if (t.kind != Tok::Int || t.overflow || t.ival > UINT32_MAX) {
    unexpected(what);
    return false;
  }
  out = uint32_t(next().ival);
  return true;
}

bool Parser::parse_uint_list(std::vector<uint64_t>& out) {
  do {
    const Token& t = peek();
    if (t.kind != Tok::Int || t.overflow) {
      unexpected("an integer");
      return false;
    }
    if (out.size() >= 3) {
      error_at(t, "too many values (at most 3)");
      return false;
    }
    out.push_back(next().ival);
  } while (accept_punct(','));
  return true;
}

bool Parser::parse_func_directive(Function& f) {
  const Token& t = next();
  std::string_view d = t.text;
  static constexpr std::string_view kWithValues[] = {".maxntid", ".reqntid", ".minnctapersm", ".maxnreg",
                                                     ".maxclusterrank", ".reqnctapercluster", ".maxnctapersm"};
  if (d == ".noreturn") {
    f.noreturn = true;
    return true;
  }
  if (d == ".explicitcluster") {
    f.directives.emplace_back("explicitcluster", std::vector<uint64_t>{});
    return true;
  }
  if (d == ".pragma") {
    --pos_;
    parse_pragma();
    return !stopped_;
  }
  if (std::find(std::begin(kWithValues), std::end(kWithValues), d) != std::end(kWithValues)) {
    std::vector<uint64_t> v;
    if (!parse_uint_list(v)) return false;
    if (d == ".maxntid" || d == ".reqntid") check_ntid(t, v);
    f.directives.emplace_back(std::string(d.substr(1)), std::move(v));
    return true;
  }
  error_at(t, fmt::format("unknown function directive '{}'", quote(d)));
  return false;
}

void Parser::parse_function(Linkage linkage) {
  Function f;
  f.linkage = linkage;
  const Token& kw = next();
  f.loc = kw.loc;
  f.is_entry = kw.text == ".entry";
  if (!f.is_entry && at_punct('(')) {
    next();
    if (!parse_param_list(f.returns)) return sync_module();
  }
  if (peek().kind != Tok::Ident) {
    unexpected("a function name");
    return sync_module();
  }
  f.name = std::string(next().text);
  if (accept_punct('(') && !parse_param_list(f.params)) return sync_module();
  while (peek().kind == Tok::Directive) {
    if (!parse_func_directive(f)) return sync_module();
  }
  if (f.is_entry) check_kernel_params(f);
  if (accept_punct(';')) {
    mod_.functions.push_back(std::move(f));
    return;
  }
  if (!at_punct('{')) {
    unexpected("'{' or ';' after the function header");
    return sync_module();
  }
  f.body.emplace();
  cur_loc_.reset();
  cur_inlined_.reset();
  loc_outermost_.clear();
  if (parse_block(*f.body, 1)) {
    scope_labels(f);
    check_function(f);
    check_registers(f);
  }
  mod_.functions.push_back(std::move(f));
}

// After '(': "decl, decl, ... )". An empty list is allowed.
bool Parser::parse_param_list(std::vector<VarDecl>& out) {
  if (accept_punct(')')) return true;
  do {
    VarDecl d;
    if (!parse_param(d)) return false;
    out.push_back(std::move(d));
  } while (accept_punct(','));
  return expect_punct(')', "after parameter list");
}

bool Parser::parse_param(VarDecl& d) {
  const Token& t = peek();
  d.loc = t.loc;
  if (t.kind != Tok::Directive || !space_of(t.text, d.space) ||
      (d.space != Space::Param && d.space != Space::Reg)) {
    unexpected("'.param' or '.reg'");
    return false;
  }
  next();
  return parse_decl_head(d, true) && parse_decl_name(d);
}

bool Parser::space_of(std::string_view dir, Space& out) {
  static constexpr std::pair<std::string_view, Space> kSpaces[] = {
      {".reg", Space::Reg},       {".sreg", Space::Sreg},     {".const", Space::Const},
      {".global", Space::Global}, {".local", Space::Local},   {".param", Space::Param},
      {".shared", Space::Shared}, {".tex", Space::Tex}};
  for (const auto& [name, sp] : kSpaces)
    if (name == dir) {
      out = sp;
      return true;
    }
  return false;
}

// ".align 8 .v4 .f32" and, for parameters, ".ptr .global .align 16".
bool Parser::parse_decl_head(VarDecl& d, bool is_param) {
  bool have_type = false;
  while (peek().kind == Tok::Directive) {
    const Token& t = next();
    std::string_view s = t.text;
    Type ty;
    if (s == ".align") {
      uint32_t a = 0;
      if (!parse_u32(a, "an alignment")) return false;
      if (a == 0 || (a & (a - 1)) != 0) {
        error_at(toks_[pos_ - 1], "alignment must be a power of two");
        return false;
      }
      (d.is_ptr ? d.ptr_align : d.align) = a;
    } else if (s == ".v2" || s == ".v4" || s == ".v8") {
      d.vector = uint32_t(s[2] - '0');
    } else if (s == ".v3") {
      error_at(t, kNoV3);
      return false;
    } else if (type_of(s, ty)) {
      if (have_type) {
        error_at(t, "more than one type in declaration");
        return false;
      }
      d.type = ty;
      have_type = true;
    } else if (s == ".attribute") {
      // ".attribute(.managed)" marks a __managed__ variable; other attributes
      // (".unified(...)") are read and ignored, balanced parentheses included.
      if (!accept_punct('(')) {
        unexpected("'(' after .attribute");
        return false;
      }
      int depth = 1;
      while (depth > 0 && peek().kind != Tok::Eof) {
        const Token& a = next();
        if (a.kind == Tok::Directive && a.text == ".managed") d.managed = true;
        else if (a.kind == Tok::Punct && a.punct == '(') ++depth;
        else if (a.kind == Tok::Punct && a.punct == ')') --depth;
      }
      if (depth > 0) {
        unexpected("')' closing .attribute");
        return false;
      }
    } else if (s == ".ptr" && is_param) {
      d.is_ptr = true;
    } else if (d.is_ptr && (s == ".global" || s == ".shared" || s == ".const" || s == ".local")) {
      Space sp;
      space_of(s, sp);
      d.ptr_space = sp;
    } else {
      error_at(t, fmt::format("unexpected '{}' in declaration", quote(s)));
      return false;
    }
  }
  if (!have_type) {
    unexpected("a type such as .b32");
    return false;
  }
  return true;
}

bool Parser::parse_decl_name(VarDecl& d) {
  const Token& t = peek();
  if (t.kind != Tok::Ident) {
    unexpected("a name");
    return false;
  }
  d.loc = t.loc;
  d.name = std::string(next().text);
  if (accept_punct('<')) {
    uint32_t n = 0;
    if (!parse_u32(n, "a register count")) return false;
    d.reg_count = n;
    if (!expect_punct('>', "after register count")) return false;
  }
  while (accept_punct('[')) {
    if (d.dims.size() >= 8) {
      error_at(peek(), "too many array dimensions");
      return false;
    }
    if (accept_punct(']')) {
      d.dims.push_back(std::nullopt);
      continue;
    }
    const Token& n = peek();
    if (n.kind != Tok::Int || n.overflow) {
      unexpected("an array size");
      return false;
    }
    d.dims.push_back(next().ival);
    if (!expect_punct(']', "after array size")) return false;
  }
  return true;
}

// "= 5", "= 0f3F800000", "= {1, {2, 3}}", "= {sym, generic(sym)+8}".
bool Parser::parse_initializer(VarDecl& d) {
  int depth = 0;
  bool need_value = true;
  for (;;) {
    if (need_value && at_punct('{')) {
      if (++depth > kMaxInitDepth) {
        error_at(peek(), "initializer nested too deeply");
        return false;
      }
      next();
      continue;
    }
    if (need_value) {
      if (at_punct('}') && depth > 0 && pos_ > 0 && toks_[pos_ - 1].kind == Tok::Punct &&
          toks_[pos_ - 1].punct == '{') {
        // "{}" is an empty group.
      } else {
        InitValue v;
        if (!parse_init_value(v)) return false;
        d.init.push_back(std::move(v));
      }
      need_value = false;
    }
    if (depth == 0) return true;
    if (accept_punct('}')) {
      --depth;
      continue;
    }
    if (!expect_punct(',', "or '}' in initializer")) return false;
    need_value = true;
  }
}

bool Parser::parse_init_value(InitValue& v) {
  bool neg = accept_punct('-');
  const Token& t = peek();
  if (t.kind == Tok::Int) {
    if (t.overflow) {
      error_at(t, "integer literal out of range");
      return false;
    }
    v.kind = InitValue::Kind::Int;
    v.bits = neg ? uint64_t(0) - next().ival : next().ival;
    return true;
  }
  if (t.kind == Tok::Float) {
    next();
    v.kind = InitValue::Kind::Float;
    v.is_double = t.is_f64;
    v.bits = t.ival;
    if (neg) v.bits ^= t.is_f64 ? (uint64_t(1) << 63) : (uint64_t(1) << 31);
    v.fvalue = t.is_f64 ? std::bit_cast<double>(v.bits) : double(std::bit_cast<float>(uint32_t(v.bits)));
    return true;
  }
  if (!neg && t.kind == Tok::Ident) {
    v.kind = InitValue::Kind::Symbol;
    if (t.text == "generic" && at_punct('(', 1)) {
      next(), next();
      if (peek().kind != Tok::Ident) {
        unexpected("a symbol name");
        return false;
      }
      v.symbol = std::string(next().text);
      v.generic = true;
      if (!expect_punct(')', "after generic(symbol")) return false;
    } else {
      v.symbol = std::string(next().text);
    }
    if (at_punct('+') && peek(1).kind == Tok::Int) {
      next();
      v.bits = next().ival;  // byte offset from the symbol
    }
    return true;
  }
  unexpected("an initializer value");
  return false;
}

bool Parser::parse_var_decls(Space space, std::vector<VarDecl>& out) {
  VarDecl head;
  head.space = space;
  head.loc = peek().loc;
  if (!parse_decl_head(head, false)) return false;
  do {
    VarDecl d = head;
    d.init.clear();
    if (!parse_decl_name(d)) return false;
    if (accept_punct('=') && !parse_initializer(d)) return false;
    out.push_back(std::move(d));
  } while (accept_punct(','));
  return expect_punct(';', "after declaration");
}

}  // namespace detail

ParseResult parse(std::string_view text, std::string filename, size_t max_errors) {
  ParseOptions o;
  o.max_errors = max_errors;
  return detail::Parser(text, std::move(filename), o).run();
}

ParseResult parse(std::string_view text, std::string filename, const ParseOptions& options) {
  return detail::Parser(text, std::move(filename), options).run();
}

}  // namespace softgpu::ptx
