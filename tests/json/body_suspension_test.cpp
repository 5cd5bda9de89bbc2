// A parsed body across a suspension (json/body.hpp, BodyTexts): a write endpoint parses
// its body, then awaits the database while other requests of the same core parse theirs
// with the same per-core parser. Its values live in the BodyTexts of its own frame, so
// they are still its own when it resumes.
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <string>

#include "json/body.hpp"
#include "runtime/io.hpp"
#include "support/event_wait.hpp"
#include "support/run_task.hpp"

namespace storeapi::json {
namespace {

using namespace std::chrono_literals;

constexpr Field kFields[] = {
    {"mode", FieldType::string, true},
    {"note", FieldType::string},
};

struct Seen {
  std::string mode, note, unknown;
};

// Parses `body`, suspends for `wait`, then records what its values and error say.
runtime::task<void> parse_then_wait(BodyParser& parser, std::string body, std::chrono::milliseconds wait, Seen& seen,
                                    testing::Finished& finished) {
  std::array<FieldValue, 2> values;
  BodyTexts texts;
  const std::optional<BodyError> error = parser.parse(body, kFields, values, texts);
  body.assign(body.size(), 'x');  // the request's buffer is not where the values live either
  co_await runtime::sleep_for(wait);
  seen.mode = values[0].text;
  seen.note = values[1].text;
  if (error && error->param) seen.unknown = *error->param;
  finished.one();
}

TEST(BodyAcrossSuspension, EachRequestKeepsItsOwnValues) {
  BodyParser parser;  // one per core
  const std::string long_note(2 * BodyTexts::kInline, 'n');  // past the inline room: the heap path
  Seen first, second, third;
  testing::Finished finished;
  testing::run_on_reactor([&]() -> runtime::task<void> {
    runtime::spawn(parse_then_wait(parser, R"({"mode":"set","note":"caf\u00e9"})", 30ms, first, finished));
    runtime::spawn(
        parse_then_wait(parser, R"({"mode":"adjust","note":")" + long_note + R"("})", 20ms, second, finished));
    co_await parse_then_wait(parser, R"({"mode":"set","colour":"red"})", 1ms, third, finished);
    const bool all = co_await finished.reach(3, 10s);
    EXPECT_TRUE(all);
  });
  EXPECT_EQ(first.mode, "set");
  EXPECT_EQ(first.note, "caf\xc3\xa9");
  EXPECT_EQ(second.mode, "adjust");
  EXPECT_EQ(second.note, long_note);
  EXPECT_EQ(third.unknown, "colour");  // an unknown field's name is kept the same way
}

}  // namespace
}  // namespace storeapi::json
