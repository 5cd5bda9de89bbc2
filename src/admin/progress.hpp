#pragma once
// A one-line progress display on stderr, drawn only when stderr is a terminal (so logs
// and tests see nothing).
#include <cstddef>
#include <string_view>

namespace storeapi::admin {

class Progress {
 public:
  Progress();
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Redraws when the percentage of `phase` changes.
  void update(std::string_view phase, std::size_t done, std::size_t total);

 private:
  bool enabled_;
  int last_percent_ = -1;
  std::string_view last_phase_;
};

}  // namespace storeapi::admin
