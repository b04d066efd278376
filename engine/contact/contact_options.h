// The scene's `contact` section: how constraint contact (engine/contact/constraint_contact.h) is
// solved. Part of the immutable model.
#pragma once

namespace softbody {

enum class ContactScheme {
  kStandard,  // each Newton iteration rebuilds W = H A^-1 H^T and corrects with a solve
  kFast,      // seed 002: W_J once per step, re-oriented per iteration without solves
};

struct ContactOptions {
  ContactScheme scheme = ContactScheme::kStandard;
  // m: re-linearizations of the constraint directions within a step (1: SOFA's one linearization).
  int newton_iterations = 1;
  int pgs_iterations = 200;  // sweeps at most per Newton iteration
  // Relative to the body's rest bounding-box diagonal: PGS stops when its natural residual (a
  // penetration or slip error) is below tolerance * diagonal; obstacles closer than margin *
  // diagonal are contact candidates.
  double tolerance = 1e-6;
  double margin = 0.01;
  // The compliance W from a factor of the step matrix at the free motion's end, made for each step
  // with contacts (true), or from the factor the step's solver reuses, possibly some steps old
  // (false: SOFA's preconditioner-based W, one factorization fewer, but the force follows the
  // stale matrix: measured 40-60 % jumps on a pressed block when the reused factor is refreshed).
  bool fresh_compliance = true;
  // A fresh compliance keeps the factor in use when it was made from a matrix this close to the
  // step's (relative, Frobenius): its W then differs from a new factor's by about as much, and the
  // contact forces by about that share. A held knight's matrix moves ~1e-8 a step, the squeezed
  // cube of scenes/grasp.json 1e-6-8e-6 (at 1e-6 it refactored every other held step; at 1e-5 its
  // trajectory moved 4e-8 m, 7e-7 of its diagonal, and a held step took 4.7 ms instead of 22);
  // a closing grasp's 1e-3 and more. 0: factor every step.
  double fresh_tolerance = 1e-5;
  // Self contact (`contact.self`): the body's boundary vertices against its own boundary faces
  // (parts of one body folding onto each other, or the separate bodies of one mesh), as
  // constraint contacts with Coulomb friction `self_mu`.
  bool self = false;
  double self_mu = 0;
  // Also each boundary vertex that crossed a boundary face, and each boundary edge that crossed a
  // boundary edge, during the step (continuous detection: a fast fold moves the surface further
  // than the margin plus half an edge, out of the discrete detection's reach).
  bool self_continuous = true;
};

const char* contact_scheme_name(ContactScheme scheme);

}  // namespace softbody
