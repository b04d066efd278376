// A tool's contact problem for haptics (issue 22): the contacts of one constraint obstacle from
// the last step (their frames, compliance W in position form, free gaps and slips, friction), to
// be re-solved for the tool's newest position at 1 kHz between steps, on the server and in the
// clients, instead of a linear force model: moving the tool by d shifts every contact's free gap
// and slip by -C_k d, and the contact solve (contact_pgs.h's solve_contact, without its proximal
// point iterations, whose cost a haptic tick cannot bound) gives the forces there. At the stepped
// position it gives the step's force to the solve's tolerance; it is exact for the frozen body as
// long as the tool's contact points stay (their Jacobian J is the step's). Standard library only.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "codec/contact_pgs.h"

namespace softbody::codec {

struct ToolContactModel {
  std::array<double, 3> reference_position{0, 0, 0};  // where the step had the tool [m]
  ContactProblem problem;                             // at the reference position
  std::vector<double> frames;  // 9 per contact, row-major rows n, t1, t2 (n into the body)
  std::vector<double> lambda;  // the last answer (the step's, then each re-solve's): warm start
  std::int64_t step = -1;
  bool empty() const { return problem.contacts == 0; }
};

// The force on the tool at `position` [N] (zero without contacts), re-solving the problem; the
// answer becomes the next call's warm start. `report`, when given, gets the solve's figures.
std::array<double, 3> evaluate(ToolContactModel& model, const std::array<double, 3>& position,
                               PgsReport* report = nullptr);

}  // namespace softbody::codec
