// The recursive-descent parser behind ptx::parse(). Internal header shared by
// parser.cpp (module level, declarations) and parser_body.cpp (statements).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "ptx/lexer.h"
#include "ptx/parser.h"

namespace softgpu::ptx::detail {

// Limits that keep hostile input from exhausting the stack or the caller's patience.
inline constexpr int kMaxBlockDepth = 64;      // nested "{ }" scopes in a body
inline constexpr int kMaxInitDepth = 16;       // nested braces in an initializer
inline constexpr uint32_t kMaxVector = 8;      // .v2/.v4/.v8
inline constexpr const char* kNoV3 = "'.v3' is not a PTX vector: vectors have 2, 4 or 8 elements (pad three to .v4)";

class Parser {
 public:
  Parser(std::string_view text, std::string filename, const ParseOptions& options);
  ParseResult run();

 private:
  // ---- tokens (parser.cpp)
  const Token& peek(size_t k = 0) const;
  const Token& next();
  bool at_punct(char c, size_t k = 0) const;
  bool at_dir(std::string_view d, size_t k = 0) const;
  bool accept_punct(char c);
  bool expect_punct(char c, std::string_view context);
  bool at_eof() const { return peek().kind == Tok::Eof; }
  SourceLoc end_of_prev() const;  // just past the previous token
  std::string describe(const Token& t) const;

  // ---- diagnostics and recovery (parser.cpp)
  void error(SourceLoc loc, std::string msg);
  void error_at(const Token& t, std::string msg);  // at t, or after the last token for EOF
  void warning(SourceLoc loc, std::string msg);
  void not_implemented(SourceLoc loc, std::string msg);  // Severity::NotImplemented: the module still loads
  void unexpected(std::string_view expected);
  bool stopped() const { return stopped_; }
  void sync_statement();  // skip past ';' or up to '}'
  void sync_module();     // skip to the next module-level directive
  void skip_line(uint32_t line);
  bool skip_braces();     // at '{': skip to the matching '}' without recursion

  // ---- module level (parser.cpp)
  void parse_module_item();
  void parse_version();
  void parse_target();
  void parse_address_size();
  void parse_file();
  void parse_loc();  // ".loc F L C [, function_name label[+N], inlined_at F L C]"
  bool parse_loc_numbers(DebugLoc& out, uint32_t line);
  void check_loc_files();  // after the module: .loc file numbers without a .file
  void parse_section();
  void parse_pragma();
  void parse_function(Linkage linkage);
  bool parse_param_list(std::vector<VarDecl>& out);
  bool parse_param(VarDecl& d);
  bool parse_func_directive(Function& f);
  bool parse_uint_list(std::vector<uint64_t>& out);
  bool parse_u32(uint32_t& out, std::string_view what);

  // ---- declarations (parser.cpp)
  static bool space_of(std::string_view dir, Space& out);
  bool parse_decl_head(VarDecl& d, bool is_param);  // attributes and type
  bool parse_decl_name(VarDecl& d);                 // name, <N>, [dims]
  bool parse_initializer(VarDecl& d);
  bool parse_init_value(InitValue& v);
  bool parse_var_decls(Space space, std::vector<VarDecl>& out);  // after the space word, through ';'

  // ---- bodies (parser_body.cpp)
  bool parse_block(Block& b, int depth);
  void parse_statement(std::vector<Statement>& body, int depth);
  void parse_label(std::vector<Statement>& body);
  bool parse_instruction(Instruction& in);
  bool parse_operand(Operand& op, bool allow_groups);
  bool parse_simple_operand(Operand& op);
  bool parse_address(Operand& op);
  bool parse_group(Operand& op, char open, char close);

  // ---- checks on a parsed function (parser_checks.cpp)
  void check_function(const Function& f);  // labels, shared/local sizes
  void scope_labels(Function& f);          // labels of nested blocks renamed apart (parser_checks.cpp)
  void check_vector_modifiers(const Token& op, const Instruction& in);
  void check_setmaxnreg(const Instruction& in);  // the register count: 24..256, a multiple of 8
  void check_ntid(const Token& dir, const std::vector<uint64_t>& dims);  // .maxntid/.reqntid within a CTA
  void check_kernel_params(const Function& f);   // at most kMaxKernelParamBytes
  // ---- declarations and operand types (parser_regs.cpp)
  void check_registers(const Function& f);  // names declared once per scope; operand types of arithmetic

  std::string_view text_;
  std::vector<Token> toks_;
  size_t pos_ = 0;
  size_t max_errors_;
  bool check_local_limit_ = false;
  bool accept_newer_version_ = false;
  bool unsupported_version_ = false;  // .version newer than kMaxPtxVersionMajor.Minor
  size_t errors_ = 0;
  bool stopped_ = false;
  Module mod_;
  std::vector<Diagnostic> diags_;
  // Source locations (.file/.loc). The current .loc applies to the
  // instructions after it up to the next one, within one function.
  std::vector<SourceLoc> file_decl_at_;           // parallel to mod_.files
  std::optional<DebugLoc> cur_loc_, cur_inlined_;
  using LocKey = std::tuple<uint32_t, uint32_t, uint32_t>;
  std::map<LocKey, DebugLoc> loc_outermost_;      // per function: a .loc's location -> its outermost call site
  std::map<uint32_t, SourceLoc> loc_file_refs_;   // file number -> first .loc naming it
};

// Quotes user text for a message: printable ASCII kept, the rest as \xNN, long text cut.
// Instruction names (mnemonic and modifiers) get a longer limit.
std::string quote(std::string_view s, size_t max_chars = 40);
// Bytes of one value of type t (.pred counts as 1; None as 0).
uint64_t type_bytes(Type t);

}  // namespace softgpu::ptx::detail
