// sanitize/suppression.h: the XML records softgpu sanitize --xml writes, the
// suppression files read back from them, and the matching of findings.
#include "sanitize/suppression.h"

#include <gtest/gtest.h>

namespace softgpu::sanitize {
namespace {

Identity api(const char* fn, const char* code) {
  Identity id;
  id.tool = "memcheck";
  id.kind = "api_error";
  id.function = fn;
  id.error = code;
  return id;
}

Identity oob() {
  Identity id;
  id.tool = "memcheck";
  id.kind = "invalid_access";
  id.kernel = "scale<int>(int*, int)";  // '<' and '>' must be escaped
  id.location = "supp.cu:12";
  id.access = "write";
  id.space = "global";
  id.size = "4";
  return id;
}

std::string report(const std::vector<std::pair<Identity, std::string>>& records) {
  std::string s = xml_begin("memcheck");
  for (const auto& [id, text] : records) s += xml_record(id, text);
  s += xml_message("LEAK SUMMARY: 0 bytes leaked in 0 allocations");
  return s + xml_end(Counts{3, 0, 3, 0, 0}, {"ERROR SUMMARY: 3 errors"});
}

TEST(Suppression, MatchesEveryFieldTheRuleHolds) {
  EXPECT_TRUE(matches(api("cudaMalloc", "2"), api("cudaMalloc", "2")));
  EXPECT_FALSE(matches(api("cudaMalloc", "2"), api("cudaMalloc", "719")));
  EXPECT_FALSE(matches(api("cudaMalloc", "2"), api("cudaFree", "2")));
  Identity other_tool = api("cudaMalloc", "2");
  other_tool.tool = "initcheck";
  EXPECT_FALSE(matches(api("cudaMalloc", "2"), other_tool));
  // A rule without a field matches any value of it.
  Identity any_location = oob();
  any_location.location.clear();
  Identity elsewhere = oob();
  elsewhere.location = "supp.cu:40";
  EXPECT_TRUE(matches(any_location, elsewhere));
  EXPECT_FALSE(matches(oob(), elsewhere));
  EXPECT_FALSE(matches(oob(), api("cudaMalloc", "2")));
  EXPECT_TRUE(suppressed({api("cudaFree", "1"), oob()}, oob()));
  EXPECT_FALSE(suppressed({api("cudaFree", "1")}, oob()));
  EXPECT_FALSE(suppressed({}, oob()));
}

TEST(Suppression, RecordsReadBackAsWritten) {
  const std::string xml = report({{api("cudaMalloc", "2"), "Program hit \"out of memory\" & more"},
                                  {oob(), "Invalid __global__ write of size 4 bytes\n    at scale<int>(int*, int)"}});
  EXPECT_NE(xml.find("scale&lt;int&gt;(int*, int)"), std::string::npos) << xml;
  EXPECT_NE(xml.find("&amp; more"), std::string::npos) << xml;
  auto rules = parse_suppressions(xml, "supp.xml");
  ASSERT_TRUE(rules) << rules.error().message;
  ASSERT_EQ(rules->size(), 2u);
  EXPECT_TRUE(matches((*rules)[0], api("cudaMalloc", "2")));
  EXPECT_FALSE(matches((*rules)[0], oob()));
  EXPECT_TRUE(matches((*rules)[1], oob()));
  EXPECT_EQ((*rules)[1].kernel, "scale<int>(int*, int)");
}

TEST(Suppression, ControlCharactersDoNotBreakTheXml) {
  Identity id = oob();
  id.location = "we\x01ird.cu:3";
  auto rules = parse_suppressions(report({{id, "text\x02"}}), "supp.xml");
  ASSERT_TRUE(rules) << rules.error().message;
  EXPECT_EQ((*rules)[0].location, "we?ird.cu:3");
}

void expect_error(const std::string& xml, const std::string& part) {
  auto rules = parse_suppressions(xml, "bad.xml");
  ASSERT_FALSE(rules) << xml;
  EXPECT_NE(rules.error().message.find("suppression file 'bad.xml': line "), std::string::npos)
      << rules.error().message;
  EXPECT_NE(rules.error().message.find(part), std::string::npos) << rules.error().message;
}

TEST(Suppression, MalformedFilesAreErrors) {
  const std::string head = xml_begin("memcheck");
  expect_error("", "not well-formed XML");
  expect_error(head + "    <record><tool>memcheck</tool>", "not well-formed XML");
  expect_error("<?xml version=\"1.0\"?>\n<ComputeSanitizerOutput/>\n", "not compute-sanitizer's files");
  expect_error(head + "<record><tool>memcheck</tool><kind>leak</kind><colour>red</colour></record></softgpuSanitizer>",
               "unknown field <colour>");
  expect_error(head + "<bogus/></softgpuSanitizer>", "unknown element <bogus>");
  expect_error(head + "<record><kind>leak</kind></record></softgpuSanitizer>", "needs <tool> and <kind>");
  expect_error(head + "<record><tool>memcheck</tool><kind>leak</kind><size/></record></softgpuSanitizer>",
               "field <size> must hold text");
  expect_error(head + "<record><tool>memcheck</tool><tool>memcheck</tool><kind>leak</kind></record>"
                      "</softgpuSanitizer>",
               "given twice");
  expect_error(head + "<record><tool>asan</tool><kind>leak</kind></record></softgpuSanitizer>", "unknown tool 'asan'");
  expect_error(head + "<record><tool>memcheck</tool><kind>leek</kind></record></softgpuSanitizer>",
               "unknown kind 'leek'");
}

TEST(Suppression, FilesAreReadAsRegularFiles) {
  auto dir = read_suppressions("/");
  ASSERT_FALSE(dir);
  EXPECT_NE(dir.error().message.find("not a regular file"), std::string::npos) << dir.error().message;
  auto missing = read_suppressions("/nonexistent/supp.xml");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("/nonexistent/supp.xml"), std::string::npos);
}

}  // namespace
}  // namespace softgpu::sanitize
