// A force model plus an additive term evaluated over the same positions, as one model: the
// volumetric penalty (volumetric.h) and the average nodal pressure (nodal_volume.h) are such
// terms. A Term has a nested Workspace and
//   void add(const Vec3Array& p, unsigned what, Term::Workspace&, ForceOutput& out) const,
// which adds its energy, forces and stiffness (as `what` asks) to what the base model wrote.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "engine/forces/force_model.h"

namespace softbody {

template <typename Term>
class ModelWithTerm final : public ForceModel {
  static constexpr bool kTermHasElementForm =
      requires(const Term& term, const Vec3Array& p, ElementContribution& c) {
    term.add_element(p, Index{0}, 0u, c);
  };

 public:
  ModelWithTerm(std::unique_ptr<ForceModel> base, Term term)
      : ForceModel(base->topology_ptr()), base_(std::move(base)), term_(std::move(term)) {}
  std::string name() const override { return base_->name(); }
  std::unique_ptr<ForceWorkspace> make_workspace() const override {
    auto ws = std::make_unique<Workspace>();
    ws->base = base_->make_workspace();
    return ws;
  }
  using ForceModel::evaluate;
  void evaluate(const Vec3Array& p, unsigned what, ForceWorkspace& workspace,
                ForceOutput& out) const override {
    auto& ws = dynamic_cast<Workspace&>(workspace);
    base_->evaluate(p, what, *ws.base, out);
    term_.add(p, what, ws.term, out);
  }
  // A per-element form when both the base and the term have one (a Term with one provides
  // void add_element(const Vec3Array&, Index, unsigned, ElementContribution&) const).
  bool element_form() const override {
    if constexpr (kTermHasElementForm)
      return base_->element_form();
    else
      return false;
  }
  void add_element(const Vec3Array& p, Index t, unsigned what,
                   ElementContribution& c) const override {
    if constexpr (kTermHasElementForm) {
      base_->add_element(p, t, what, c);
      term_.add_element(p, t, what, c);
    } else {
      ForceModel::add_element(p, t, what, c);
    }
  }
  const Term& term() const { return term_; }

 private:
  struct Workspace : ForceWorkspace {
    std::unique_ptr<ForceWorkspace> base;
    typename Term::Workspace term;
  };
  std::unique_ptr<ForceModel> base_;
  Term term_;
};

}  // namespace softbody
