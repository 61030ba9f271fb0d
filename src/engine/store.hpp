#pragma once

#include <deque>
#include <tuple>

namespace rateperf::engine {

// Objects of one owner at stable addresses (connections, sessions), each made once with the
// owner's `Args` and reused: an ended one (release()) is handed out again (through its
// next_free) before a new one is made, so that none is allocated once the peak of those in use
// at once is reached.
template <class T, class... Args>
class Store {
 public:
  explicit Store(Args&... args) : args_(args...) {}

  // An ended object, or a new one.
  T& acquire() {
    if (free_ == nullptr) {
      return std::apply([this](Args&... args) -> T& { return all_.emplace_back(args...); },
                        args_);
    }
    T& object = *free_;
    free_ = object.next_free;
    return object;
  }
  // `object` ended: a later acquire() may return it.
  void release(T& object) {
    object.next_free = free_;
    free_ = &object;
  }
  std::deque<T>& all() { return all_; }
  const std::deque<T>& all() const { return all_; }
  // Destroys them all (they may hold events and timers of the loop, which must outlive them).
  void clear() {
    free_ = nullptr;
    all_.clear();
  }

 private:
  std::tuple<Args&...> args_;
  std::deque<T> all_;
  T* free_ = nullptr;
};

}  // namespace rateperf::engine
