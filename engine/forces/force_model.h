// The interface every material model implements: from vertex positions p, the strain energy W,
// the vertex forces f and the tangent stiffness K in edge-block form.
//
// Sign convention (seed 003 eqs. 1-2, 25): f = dW/dp and K = df/dp (the Hessian of W). The
// elastic force acting on the vertices is -f, so the equation of motion is M a + B v + f = h.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "engine/forces/material.h"
#include "engine/linalg/edge_block_matrix.h"
#include "engine/mesh/topology.h"

namespace softbody {

enum EvalFlags : unsigned {
  kEvalEnergy = 1u << 0,
  kEvalForces = 1u << 1,
  kEvalStiffness = 1u << 2,
  kEvalAll = kEvalEnergy | kEvalForces | kEvalStiffness,
  // Per-element evaluation (ForceModel::add_element) for a vertex-local solver: of the stiffness
  // only the diagonal block of the contribution's `vertex` is wanted (the others are left
  // unspecified), which spares a kernel nine of its ten 3x3 blocks.
  kEvalOneVertex = 1u << 3,
};

struct ForceOutput {
  double energy = 0;
  Vec3Array f;
  EdgeBlockMatrix K;
};

// Scratch memory of one evaluation; models are immutable and shared, so each caller (session,
// thread) owns its workspace.
struct ElementContribution;  // element_assembly.h

struct ForceWorkspace {
  virtual ~ForceWorkspace() = default;
};

class ForceModel {
 public:
  virtual ~ForceModel() = default;
  virtual std::string name() const = 0;
  const MeshTopology& topology() const { return *topology_; }
  const std::shared_ptr<const MeshTopology>& topology_ptr() const { return topology_; }

  virtual std::unique_ptr<ForceWorkspace> make_workspace() const {
    return std::make_unique<ForceWorkspace>();
  }
  // Fills the parts of `out` that `what` asks for (resizing them); p has one entry per vertex.
  virtual void evaluate(const Vec3Array& p, unsigned what, ForceWorkspace& workspace,
                        ForceOutput& out) const = 0;

  // The per-tetrahedron form that vertex-local solvers need (Vertex Block Descent, seed 004): the
  // energy is a sum over tetrahedra, and add_element adds tetrahedron t's energy, forces and
  // stiffness at p (as `what` asks) to `c`, in the tetrahedron's local numbering. Models whose
  // energy does not split by element (edge-based StVK, spring networks, nodal pressure) have
  // none: element_form() is false and add_element throws std::logic_error.
  virtual bool element_form() const { return false; }
  virtual void add_element(const Vec3Array& p, Index t, unsigned what,
                           ElementContribution& c) const;

  // Convenience for tests and tools: evaluation with a fresh workspace.
  ForceOutput evaluate(const Vec3Array& p, unsigned what = kEvalAll) const {
    ForceOutput out;
    auto workspace = make_workspace();
    evaluate(p, what, *workspace, out);
    return out;
  }

 protected:
  explicit ForceModel(std::shared_ptr<const MeshTopology> topology)
      : topology_(std::move(topology)) {}
  // Sizes the requested outputs and, when the model accumulates into them (`zero`), clears them.
  // Models that assign every entry pass zero = false and skip a pass over memory.
  void prepare_output(unsigned what, ForceOutput& out, bool zero = true) const;

  std::shared_ptr<const MeshTopology> topology_;
};

// Sizes the requested outputs of `out` for `topology` and, when `zero`, clears them.
void prepare_force_output(const MeshTopology& topology, unsigned what, ForceOutput& out,
                          bool zero = true);

// Model names: "stvk-edge", "stvk-tl", "nsn", "corotational". With `nodal_pressure` the law
// keeps its volume per vertex (average nodal pressure, forces/nodal_volume.h; the topology must
// couple second neighbours); the volumetric penalty stays per element, with the element law's
// split material.
std::unique_ptr<ForceModel> make_force_model(const std::string& name,
                                             std::shared_ptr<const MeshTopology> topology,
                                             const Vec3Array& rest_positions,
                                             const Material& material,
                                             VolumetricKind volumetric = VolumetricKind::kNone,
                                             bool nodal_pressure = false);

const std::vector<std::string>& force_model_names();

}  // namespace softbody
