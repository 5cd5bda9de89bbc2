#include "db/statement.hpp"

#include <stdexcept>
#include <string_view>
#include <vector>

namespace storeapi::db {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The $N numbers `sql` uses, by number: used[n] is true when $n appears.
std::vector<bool> placeholders(std::string_view sql) {
  std::vector<bool> used;
  for (std::size_t i = 0; i < sql.size(); ++i) {
    const char c = sql[i];
    if (c == '\'' || c == '"') {  // a literal or quoted identifier; doubled quotes stay inside
      const std::size_t end = sql.find(c, i + 1);
      if (end == std::string_view::npos) break;
      i = end;
    } else if (c == '-' && i + 1 < sql.size() && sql[i + 1] == '-') {
      const std::size_t end = sql.find('\n', i);
      if (end == std::string_view::npos) break;
      i = end;
    } else if (c == '$' && i + 1 < sql.size() && is_digit(sql[i + 1])) {
      std::size_t n = 0;
      while (i + 1 < sql.size() && is_digit(sql[i + 1])) n = n * 10 + static_cast<std::size_t>(sql[++i] - '0');
      if (n >= used.size()) used.resize(n + 1);
      used[n] = true;
    }
  }
  return used;
}

}  // namespace

std::optional<std::string> parameter_mismatch(const Statement& statement) {
  const std::vector<bool> used = placeholders(statement.sql);
  const int highest = used.empty() ? 0 : static_cast<int>(used.size()) - 1;
  const std::string name(statement.name);
  if (highest != statement.param_count())
    return name + ": declares " + std::to_string(statement.param_count()) + " parameters, its SQL uses up to $" +
           std::to_string(highest);
  for (int n = 1; n <= highest; ++n) {
    if (!used[static_cast<std::size_t>(n)]) return name + ": $" + std::to_string(n) + " is never used";
  }
  return std::nullopt;
}

void check_parameters(std::span<const Statement> statements) {
  std::string problems;
  for (const Statement& s : statements) {
    if (auto problem = parameter_mismatch(s)) problems += (problems.empty() ? "" : "; ") + *problem;
  }
  if (!problems.empty()) throw std::invalid_argument("prepared statements: " + problems);
}

}  // namespace storeapi::db
