// Time per tetrahedron of f and f+K for every force model, with and without the volumetric term.
// FLOP counts are those of seed 003 (§3.6 eq. 35 for the edge form and NSN, Appendix B for TL);
// "gflops" divides them by the measured time. Our gather-form edge kernels execute more
// multiplications than eq. 35 counts (see engine/forces/stvk_edge.h), so that figure is the
// paper-equivalent rate, not a hardware counter.
#include "bench/forces_benchmark.h"

#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "bench/timing.h"
#include "engine/forces/force_model.h"
#include "engine/forces/verification.h"
#include "engine/mesh/box_generator.h"
#include "engine/mesh/reorder.h"
#include "engine/mesh/validation.h"
#include "engine/parallel/parallel.h"

namespace softbody::bench {
namespace {

// A mesh path, or "box:NX,NY,NZ" for the generator.
TetMesh load_benchmark_mesh(const std::string& spec) {
  if (spec.rfind("box:", 0) == 0) {
    BoxSpec box;
    if (std::sscanf(spec.c_str() + 4, "%d,%d,%d", &box.nx, &box.ny, &box.nz) != 3) {
      throw std::invalid_argument("--mesh box:NX,NY,NZ expects three integers, got '" + spec + "'");
    }
    box.size = Vec3(box.nx, box.ny, box.nz) * 0.01;
    return make_box_mesh(box);
  }
  return load_mesh(spec).mesh;
}

std::optional<double> paper_flops(const std::string& model, bool stiffness, const MeshTopology& t) {
  const double ne = t.num_edges(), nf = t.num_faces(), nt = t.num_tets();
  if (model == "stvk-tl") return stiffness ? 1747 * nt : 387 * nt;
  const double f_edges = 19 * ne, k_edges = 24 * ne;
  if (model == "nsn") return stiffness ? f_edges + k_edges : f_edges;
  if (model == "stvk-edge") {
    const double f = f_edges + 12 * nf + 12 * nt;
    return stiffness ? f + k_edges + 117 * nf + 144 * nt : f;
  }
  return std::nullopt;
}

}  // namespace

void add_forces_benchmark(CLI::App& app) {
  auto* cmd = app.add_subcommand("forces", "time f and f+K of every force model");
  struct Args {
    std::string mesh;
    int threads = 1;
    bool json = false;
    double min_time = 0.5;
    int min_runs = 5;
    bool keep_order = false;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("--mesh", args->mesh, "mesh file, or box:NX,NY,NZ")->required();
  cmd->add_option("--threads", args->threads, "OpenMP threads")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_flag("--json", args->json,
                "print JSON (accepted for uniformity: JSON is the only output format)");
  cmd->add_option("--min-time", args->min_time, "seconds per measurement")->capture_default_str();
  cmd->add_option("--min-runs", args->min_runs, "runs per measurement")->capture_default_str();
  cmd->add_flag("--keep-order", args->keep_order,
                "use the file's vertex order instead of reverse Cuthill-McKee");
  cmd->callback([args] {
    set_num_threads(args->threads);
    TetMesh mesh = load_benchmark_mesh(args->mesh);
    if (!args->keep_order) reorder_for_locality(mesh);
    auto topology = std::make_shared<const MeshTopology>(mesh);
    Vec3Array p = random_smooth_deformation(mesh.vertices, 0.1, 1);
    const Material material{1e5, 0.4};
    nlohmann::ordered_json out;
    out["benchmark"] = "forces";
    out["mesh"] = args->mesh;
    out["vertices"] = topology->num_vertices();
    out["edges"] = topology->num_edges();
    out["faces"] = topology->num_faces();
    out["tets"] = topology->num_tets();
    out["tseps"] = topology->num_tseps();
    out["threads"] = args->threads;
    out["vertex_order"] = args->keep_order ? "file" : "reverse Cuthill-McKee";
    out["results"] = nlohmann::json::array();
    std::map<std::string, double> median_ns;
    for (const std::string& name : force_model_names()) {
      for (VolumetricKind vol :
           {VolumetricKind::kNone, VolumetricKind::kCubic, VolumetricKind::kQuadratic}) {
        auto model = make_force_model(name, topology, mesh.vertices, material, vol);
        auto workspace = model->make_workspace();
        ForceOutput result;
        for (bool stiffness : {false, true}) {
          unsigned what = kEvalForces | (stiffness ? kEvalStiffness : 0u);
          TimingStats t = time_repeatedly([&] { model->evaluate(p, what, *workspace, result); },
                                          args->min_time, args->min_runs);
          const double per_tet = 1e9 / topology->num_tets();
          nlohmann::ordered_json r;
          r["model"] = name;
          r["volumetric"] = volumetric_kind_name(vol);
          r["mode"] = stiffness ? "f+K" : "f";
          r["runs"] = t.runs;
          r["median_ms"] = t.median_s * 1e3;
          r["median_ns_per_tet"] = t.median_s * per_tet;
          r["p10_ns_per_tet"] = t.p10_s * per_tet;
          r["p90_ns_per_tet"] = t.p90_s * per_tet;
          std::optional<double> flops =
              vol == VolumetricKind::kNone ? paper_flops(name, stiffness, *topology) : std::nullopt;
          r["paper_flops_per_tet"] =
              flops ? nlohmann::json(*flops / topology->num_tets()) : nlohmann::json(nullptr);
          r["paper_gflops"] =
              flops ? nlohmann::json(*flops / t.median_s * 1e-9) : nlohmann::json(nullptr);
          median_ns[name + "/" + volumetric_kind_name(vol) + "/" + (stiffness ? "f+K" : "f")] =
              t.median_s * per_tet;
          out["results"].push_back(r);
        }
      }
    }
    auto ratio = [&](const std::string& a, const std::string& b) {
      return median_ns.at(a) / median_ns.at(b);
    };
    out["speedups"] = {
        {"stvk-edge_vs_stvk-tl_f+K", ratio("stvk-tl/none/f+K", "stvk-edge/none/f+K")},
        {"stvk-edge_vs_stvk-tl_f", ratio("stvk-tl/none/f", "stvk-edge/none/f")},
        {"nsn_vs_stvk-edge_f+K", ratio("stvk-edge/none/f+K", "nsn/none/f+K")},
        {"stvk-edge_vs_corotational_f+K", ratio("corotational/none/f+K", "stvk-edge/none/f+K")},
    };
    std::cout << out.dump(2) << '\n';
  });
}

}  // namespace softbody::bench
