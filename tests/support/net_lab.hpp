#pragma once
// A network of the test's own, for faults a loopback cannot show (a host whose packets
// vanish: no reset, no refusal, nothing). A hub namespace holds a bridge (10.233.0.1/24)
// and the test itself: its calling thread joins the hub, so the threads and processes it
// starts afterwards (servers, clients) live there and reach the hosts over the bridge;
// loopback listeners are the hub's own. Each host is a namespace of its own with one
// veth into the bridge and one address of 10.233.0.0/24 (its neighbour entry pinned in
// the hub, so that a host cut off makes connects hang on an unanswered SYN rather than
// fail after a failed ARP lookup). Every name carries the process id; everything is
// removed when the lab goes, and namespaces left by a test process that died are removed
// when the next lab is made. Needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN): where the
// namespaces cannot be made the constructor throws NetLab::Unavailable with the reason.
#include <stdexcept>
#include <string>
#include <vector>

namespace storeapi::testing {

class NetLab {
 public:
  struct Unavailable : std::runtime_error {
    using std::runtime_error::runtime_error;
  };
  struct Host {
    std::string netns;     // `ip netns exec <netns> …` runs a program on it
    std::string address;   // its address on the bridge
    std::string hub_link;  // its veth's end in the hub
  };

  NetLab();
  // Leaves the hub (the calling thread back in its own namespace) and deletes every
  // namespace of the lab.
  ~NetLab();
  NetLab(const NetLab&) = delete;
  NetLab& operator=(const NetLab&) = delete;

  // A new host on the bridge.
  const Host& add_host();
  // Its link set down: every packet to and from it vanishes from now on.
  void cut(const Host& host);
  // Its link up again.
  void mend(const Host& host);

 private:
  std::string name(const std::string& what) const;

  std::string hub_;
  int original_netns_ = -1;
  std::vector<Host> hosts_;  // reserved up front: add_host hands out references
};

// Runs `argv` (argv[0] looked up in PATH), throwing with its output when it fails.
void run_checked(const std::vector<std::string>& argv);

}  // namespace storeapi::testing
