// The phases of `store move` and `store restore` (admin/move/phases.hpp): the names the
// directory records are the ones the previous release's tool reads, a phase table runs
// from the phase it is given, and a phase that runs twice is reported once.
#include "admin/move/phases.hpp"

#include "admin/base/errors.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

namespace storeapi::admin {
namespace {

// sql/035_store_moves.sql's check, and what 0.1.0's `store move` compares with: a move
// recorded in other words would be finished by it instead of undone.
TEST(MovePhases, TheRecordedOnesKeepTheStringsTheDirectoryHolds) {
  EXPECT_EQ(stored_phase(MovePhase::copying), "copying");
  EXPECT_EQ(stored_phase(MovePhase::flipped), "flipped");
  EXPECT_EQ(stored_phase(MovePhase::done), "done");
  for (MovePhase phase : {MovePhase::copying, MovePhase::flipped, MovePhase::done})
    EXPECT_EQ(recorded_phase(stored_phase(phase)), phase);
  EXPECT_THROW(recorded_phase("copy"), CommandError);
  EXPECT_THROW(recorded_phase("lift"), CommandError);
}

TEST(MovePhases, EveryPhaseHasItsOwnName) {
  for (std::size_t i = 0; i < kPhaseNames.size(); ++i)
    for (std::size_t j = i + 1; j < kPhaseNames.size(); ++j) EXPECT_NE(kPhaseNames[i], kPhaseNames[j]);
  EXPECT_EQ(phase_name(MovePhase::checks), "checks");
  EXPECT_EQ(phase_name(MovePhase::dispatch_pause), "dispatch_pause");
  EXPECT_EQ(phase_name(MovePhase::done), "done");
}

struct Ran {
  std::vector<MovePhase> phases;
};

template <MovePhase P>
void note(Ran& ran) {
  ran.phases.push_back(P);
}

constexpr std::array<PhaseStep<Ran>, 4> kSteps = {{
    {MovePhase::checks, note<MovePhase::checks>},
    {MovePhase::copying, note<MovePhase::copying>},
    {MovePhase::flipped, note<MovePhase::flipped>},
    {MovePhase::lift, note<MovePhase::lift>},
}};

TEST(MovePhases, ATableRunsFromThePhaseGivenInItsOrder) {
  PhaseClock clock("test");
  Ran all;
  run_phases<Ran>(kSteps, all, clock, MovePhase::checks);
  EXPECT_EQ(all.phases,
            (std::vector<MovePhase>{MovePhase::checks, MovePhase::copying, MovePhase::flipped, MovePhase::lift}));
  Ran resumed;
  run_phases<Ran>(kSteps, resumed, clock, MovePhase::flipped);
  EXPECT_EQ(resumed.phases, (std::vector<MovePhase>{MovePhase::flipped, MovePhase::lift}));
}

TEST(MovePhases, APhaseRunAgainIsReportedOnceInTheOrderItFirstRan) {
  PhaseClock clock("test");
  clock.start(MovePhase::checks);
  clock.start(MovePhase::undo);
  clock.start(MovePhase::checks);
  clock.finish();
  JsonWriter json;
  json.begin_object();
  clock.write(json);
  json.end_object();
  const std::string text = json.str();
  EXPECT_EQ(text.find("\"checks\""), text.rfind("\"checks\"")) << text;
  EXPECT_LT(text.find("\"checks\""), text.find("\"undo\"")) << text;
}

}  // namespace
}  // namespace storeapi::admin
