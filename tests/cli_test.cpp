// softbody-sim as a user runs it: JSON outputs, exit statuses, files written, error messages.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/forces/force_model.h"
#include "engine/forces/verification.h"
#include "engine/io/mesh_io.h"
#include "engine/io/text_scanner.h"
#include "engine/mesh/validation.h"
#include "engine/tests/test_support.h"
#include "tests/process.h"

namespace softbody {
namespace {

const std::string kSim = SOFTBODY_SIM;
const std::string kKnight = std::string(SOFTBODY_PROJECT_MESHES) + "/knight.node";

nlohmann::json run_json(const std::string& args, int expected_exit = 0) {
  test::ProcessResult r = test::run_process(kSim + " " + args);
  EXPECT_EQ(r.exit_code, expected_exit) << args << "\n" << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(SimInfo, ReportsCountsOfTheShippedMesh) {
  nlohmann::json j = run_json("info " + kKnight);
  EXPECT_EQ(j["vertices"], 554);
  EXPECT_EQ(j["tets"], 1566);
  EXPECT_EQ(j["edges"], 2619);
  EXPECT_EQ(j["tseps_type1"].get<int>(), 3 * j["faces"].get<int>());
  EXPECT_EQ(j["tseps_type2"].get<int>(), 3 * j["tets"].get<int>());
  EXPECT_EQ(j["tseps"].get<int>(), j["tseps_type1"].get<int>() + j["tseps_type2"].get<int>());
  EXPECT_GT(j["rest_volume"].get<double>(), 0);
  EXPECT_GT(j["min_quality"].get<double>(), 0);
  EXPECT_LE(j["min_quality"].get<double>(), 1);
  EXPECT_EQ(j["bbox"]["min"].size(), 3u);
}

TEST(SimCheck, PassesForEveryModelWithItsDocumentedFields) {
  for (std::string model : {"stvk-edge", "stvk-tl", "nsn", "corotational"}) {
    nlohmann::json j =
        run_json("check " + kKnight + " --model " + model + " --volumetric quadratic --seed 3");
    EXPECT_TRUE(j["passed"].get<bool>()) << model;
    EXPECT_LT(j["force_vs_energy"].get<double>(), 1e-6) << model;
    EXPECT_LT(j["stiffness_vs_forces"].get<double>(), 1e-6) << model;
    EXPECT_EQ(j.contains("forces_vs_stvk_tl"), model == "stvk-edge") << model;
  }
}

TEST(SimCheck, FailsWithStatusOneWhenAToleranceIsExceeded) {
  // A finite-difference step of 10% of the mesh size cannot reproduce the derivatives of a
  // non-polynomial energy (for StVK, a cubic, the extrapolated differences stay exact).
  nlohmann::json j =
      run_json("check " + kKnight + " --model corotational --volumetric cubic --fd-step 0.1", 1);
  EXPECT_FALSE(j["passed"].get<bool>());
}

TEST(SimEval, AgreesWithTheLibraryAndWritesForces) {
  test::TempDir dir;
  LoadedMesh mesh = load_mesh(kKnight);
  TetMesh deformed = mesh.mesh;
  deformed.vertices = random_smooth_deformation(mesh.mesh.vertices, 0.2, 5);
  std::string deformed_path = dir.file("deformed.vtu");
  write_vtu(deformed_path, deformed, {}, true);
  nlohmann::json j =
      run_json("eval " + kKnight + " --deformed " + deformed_path +
               " --model stvk-edge --E 2e5 --nu 0.3 --volumetric cubic --json --forces-out " +
               dir.file("f.csv"));
  auto topo = std::make_shared<const MeshTopology>(mesh.mesh);
  auto model = make_force_model("stvk-edge", topo, mesh.mesh.vertices, Material{2e5, 0.3},
                                VolumetricKind::kCubic);
  ForceOutput expected = model->evaluate(deformed.vertices);
  EXPECT_NEAR(j["energy"].get<double>(), expected.energy, 1e-12 * expected.energy);
  EXPECT_NEAR(j["stiffness_frobenius_norm"].get<double>(), expected.K.frobenius_norm(),
              1e-9 * expected.K.frobenius_norm());
  std::string csv = read_file(dir.file("f.csv"));
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 554);
}

TEST(SimEval, WritesAVtuWithDisplacementAndEnergyDensity) {
  test::TempDir dir;
  LoadedMesh mesh = load_mesh(kKnight);
  TetMesh deformed = mesh.mesh;
  deformed.vertices = random_smooth_deformation(mesh.mesh.vertices, 0.2, 6);
  write_mesh(dir.file("deformed.msh"), deformed, {.binary = true});
  ASSERT_EQ(test::run_process(kSim + " eval " + kKnight + " --deformed " +
                              dir.file("deformed.msh") + " --vtu-out " + dir.file("state.vtu"))
                .exit_code,
            0);
  std::string vtu = read_file(dir.file("state.vtu"));
  EXPECT_NE(vtu.find("Name=\"displacement\""), std::string::npos);
  EXPECT_NE(vtu.find("Name=\"strain_energy_density\""), std::string::npos);
  ParsedMesh back = parse_mesh_file(dir.file("state.vtu"));
  ASSERT_EQ(back.mesh.vertices.size(), deformed.vertices.size());
  EXPECT_EQ(back.mesh.vertices[7], deformed.vertices[7]);
}

TEST(SimEval, RejectsADeformedFileOfAnotherMesh) {
  test::ProcessResult r = test::run_process(kSim + " eval " + kKnight + " --deformed " +
                                            test::test_mesh("octopus-low.mesh"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("does not have the same vertices and tetrahedra"), std::string::npos)
      << r.err;
}

TEST(SimConvert, RoundTripsThroughBinaryMshAndWritesSurfaces) {
  test::TempDir dir;
  test::ProcessResult r =
      test::run_process(kSim + " convert " + kKnight + " " + dir.file("k.msh") + " --binary");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = run_json("info " + dir.file("k.msh"));
  EXPECT_EQ(j["tets"], 1566);
  EXPECT_EQ(j["format"], "Gmsh MSH");
  ASSERT_EQ(test::run_process(kSim + " convert " + kKnight + " " + dir.file("k.stl")).exit_code, 0);
  EXPECT_NE(read_file(dir.file("k.stl")).find("facet normal"), std::string::npos);
}

const std::string kScenes = std::string(SOFTBODY_PROJECT_MESHES) + "/../scenes";

std::vector<nlohmann::json> json_lines(const std::string& text) {
  std::vector<nlohmann::json> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  return lines;
}

TEST(SimRun, PrintsOneJsonLinePerStepAndASummary) {
  test::ProcessResult r =
      test::run_process(kSim + " run " + kScenes + "/default.json --steps 5 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<nlohmann::json> lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 6u);
  for (int k = 0; k < 5; ++k) {
    for (const char* key :
         {"step", "t", "iterations", "residual", "max_speed", "step_ms", "rolled_back"}) {
      EXPECT_TRUE(lines[static_cast<size_t>(k)].contains(key)) << key;
    }
    EXPECT_EQ(lines[static_cast<size_t>(k)]["step"], k + 1);
  }
  EXPECT_TRUE(lines.back()["summary"].get<bool>());
  EXPECT_EQ(lines.back()["steps"], 5);
}

// The shipped constraint-contact scenes (issue 22). grasp: two jaws squeeze the 3 cm cube and lift
// it 3 cm; friction holds it (its lowest point rises by the lift, less 2 mm of slip and sag).
// The grasp's cube has a supernodal factor (BLAS kernels): its steps, like every other part of
// the engine, give the same bits on one thread and on two.
TEST(SimRun, ASupernodalFactorGivesTheSameStepsOnOneAndTwoThreads) {
  std::vector<nlohmann::json> runs;
  for (const char* threads : {"1", "2"}) {
    test::ProcessResult r = test::run_process(kSim + " run " + kScenes +
                                              "/grasp.json --steps 3 --json --threads " + threads);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::vector<nlohmann::json> lines = json_lines(r.out);
    ASSERT_EQ(lines.size(), 4u);
    runs.push_back(lines[2]);
  }
  EXPECT_GT(runs[0]["factorizations"].get<int>(), 0);
  for (const char* key : {"bbox_min", "bbox_max", "momentum", "residual"})
    EXPECT_EQ(runs[0][key].dump(), runs[1][key].dump()) << key;
}

TEST(SimRun, TheGraspSceneLiftsTheCubeWithoutSlip) {
  test::ProcessResult r = test::run_process(kSim + " run " + kScenes + "/grasp.json --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<nlohmann::json> lines = json_lines(r.out);
  lines.pop_back();  // the summary
  ASSERT_EQ(lines.size(), 120u);
  std::vector<double> penetration;
  for (const nlohmann::json& j : lines) {
    EXPECT_FALSE(j["failed"].get<bool>());
    penetration.push_back(j["max_penetration"].get<double>());
    // While the jaws squeeze (140-150 contacts, dependent rows in W) a few solves stop short of
    // their tolerance (5e-8 m), by at most 15 um measured (0.54 mm before the singular active
    // sets were regularized and Alart-Curnier's Newton added).
    EXPECT_LT(j["pgs_residual"].get<double>(), 1e-4) << "step " << j["step"];
    EXPECT_LT(j["max_penetration"].get<double>(), 1e-4) << "step " << j["step"];
    // Where the contact stage's time went: parts of it, each within it; a step with contacts
    // builds W and (fresh compliance, the default) factors the matrix for it.
    const nlohmann::json& times = j["contact_times_ms"];
    double parts = 0;
    for (const char* part : {"detect", "factor", "compliance", "solve", "correction"}) {
      EXPECT_GE(times[part].get<double>(), 0) << part;
      parts += times[part].get<double>();
    }
    EXPECT_LE(parts, j["contact_ms"].get<double>()) << "step " << j["step"];
    if (j["active_contacts"].get<int>() > 0) {
      EXPECT_GT(times["compliance"].get<double>(), 0) << "step " << j["step"];
      EXPECT_GT(times["factor"].get<double>(), 0) << "step " << j["step"];
    }
  }
  std::nth_element(penetration.begin(), penetration.begin() + 60, penetration.end());
  EXPECT_LT(penetration[60], 1e-6);
  const nlohmann::json& lifted = lines[105];  // t = 1.06 s, the jaws held at +3 cm since 1.0 s
  EXPECT_GT(lifted["bbox_min"][1].get<double>(), 0.028) << lifted.dump();
  EXPECT_GT(lifted["active_contacts"].get<int>(), 10);  // held by the jaws, off the floor
}

// incline: mu 0.4 on 25 degrees slides at Coulomb's g (sin 25 - 0.4 cos 25) = 0.59 m/s^2 (within
// 10 % over 1 s); with mu 0.5 > tan 25 the block stays.
TEST(SimRun, TheInclineSceneFollowsCoulombsThreshold) {
  auto travel = [](const std::string& sets) {
    test::ProcessResult r =
        test::run_process(kSim + " run " + kScenes + "/incline.json --json " + sets);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<nlohmann::json> lines = json_lines(r.out);
    return lines[lines.size() - 2]["bbox_min"][0].get<double>();
  };
  const double slides = travel(""), stays = travel("--set obstacles.0.contact.mu=0.5");
  EXPECT_NEAR(slides, 0.5 * 0.5895, 0.1 * 0.5 * 0.5895);
  EXPECT_LT(std::abs(stays), 1e-3);
}

// clamp (self contact): two jaws squeeze a vessel segment (inner radius 7 mm, 3 mm wall) shut by
// 0.6 s and hold it. The lumen's top and bottom walls (probes at its middle) meet and rest on each
// other; without self contact they pass 0.85 mm into each other.
TEST(SimRun, TheClampSceneClosesTheLumenWithoutItsWallsPassing) {
  const auto lumen_gaps = [](const std::string& sets) {
    test::ProcessResult r =
        test::run_process(kSim + " run " + kScenes + "/clamp.json --json --duration 0.8 " + sets);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<nlohmann::json> lines = json_lines(r.out);
    lines.pop_back();  // the summary
    std::vector<double> gaps;
    for (const nlohmann::json& j : lines) {
      EXPECT_FALSE(j["failed"].get<bool>()) << "step " << j["step"];
      EXPECT_EQ(j["inverted_elements"].get<int>(), 0) << "step " << j["step"];
      EXPECT_LT(j["max_penetration"].get<double>(), 1e-5) << "step " << j["step"];
      const nlohmann::json& probes = j["probes"];
      gaps.push_back(0.014 + probes["lumen_top"][1].get<double>() -
                     probes["lumen_bottom"][1].get<double>());
    }
    return gaps;
  };
  const std::vector<double> with = lumen_gaps(""),
                            without = lumen_gaps("--set contact.self.enabled=false");
  ASSERT_EQ(with.size(), 80u);
  ASSERT_EQ(without.size(), 80u);
  for (size_t k = 0; k < with.size(); ++k) EXPECT_GT(with[k], -1e-4) << "step " << k + 1;
  EXPECT_LT(with.back(), 3e-4);      // shut
  EXPECT_LT(without.back(), -4e-4);  // the walls overlap
}

TEST(SimRun, SameInputsGiveBitIdenticalOutputOnOneThread) {
  auto run = [] {
    test::ProcessResult r =
        test::run_process(kSim + " run " + kScenes + "/crush.json --steps 40 --json --threads 1");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<nlohmann::json> lines = json_lines(r.out);
    for (nlohmann::json& j : lines) {
      for (const char* timing : {"step_ms", "forces_ms", "assembly_ms", "solve_ms", "correction_ms",
                                 "factor_ms", "contact_ms", "contact_times_ms", "wall_s",
                                 "realtime_factor", "median_step_ms", "p99_step_ms"}) {
        j.erase(timing);
      }
    }
    return lines;
  };
  EXPECT_EQ(run(), run());
}

// The fidelity measure: the knight at its real-time settings (auto, 1e-6) against the converged
// reference stepped beside it, and the iteration-capped QMR the scene used before, which the
// measure must tell apart.
TEST(SimRun, ReferenceMeasuresTheFidelityOfRealTimeSettings) {
  auto summary = [](const std::string& sets) {
    test::ProcessResult r = test::run_process(kSim + " run " + kScenes +
                                              "/knight.json --steps 300 --reference --json "
                                              "--threads 1 " +
                                              sets);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<nlohmann::json> lines = json_lines(r.out);
    EXPECT_EQ(lines.size(), 301u);
    for (size_t k = 0; k + 1 < lines.size(); ++k) {
      EXPECT_TRUE(lines[k].contains("distance_to_reference"));
      EXPECT_TRUE(lines[k].contains("reference_spread"));
    }
    return lines.back();
  };
  const nlohmann::json converged = summary("");
  EXPECT_EQ(converged["solver"], "auto");
  EXPECT_EQ(converged["steps_tolerance_unmet"], 0);
  EXPECT_LE(converged["max_residual"].get<double>(), 1e-6);
  EXPECT_LT(converged["max_distance_to_reference"].get<double>(), 1e-4);  // target: 1 %
  EXPECT_GT(converged["factorizations"].get<int>(), 0);
  EXPECT_LT(converged["factorizations"].get<int>(), 150);  // factors are reused
  const nlohmann::json capped = summary(
      "--set solver.type=qmr --set solver.preconditioner=block-jacobi --set "
      "solver.max_iterations=30");
  EXPECT_EQ(capped["steps_tolerance_unmet"], 300);
  EXPECT_GT(capped["max_residual"].get<double>(), 0.1);
  EXPECT_GT(capped["max_distance_to_reference"].get<double>(),
            100 * converged["max_distance_to_reference"].get<double>());
}

// A fixed-iteration solver's --reference is implicit Euler on the same energy (seed 004's issue:
// the accuracy a fast solver gives up is a number): quasi-newton on the cantilever comes closer to
// it with more iterations (measured 7.1e-3 of the diagonal at 3, 2.4e-5 at 30, 1.9e-7 at 100).
TEST(SimRun, ReferenceOfAFastSolverIsImplicitEulerOnTheSameEnergy) {
  auto summary = [](int iterations) {
    const test::ProcessResult r =
        test::run_process(kSim + " run " + kScenes +
                          "/cantilever.json --duration 0.5 --reference --json --threads 1 --set "
                          "integrator.type=quasi-newton --set material.model=corotational --set "
                          "integrator.iterations=" +
                          std::to_string(iterations));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out.substr(r.out.rfind("{\"summary\"")));
  };
  const nlohmann::json few = summary(3), many = summary(30);
  for (const nlohmann::json* s : {&few, &many}) {
    EXPECT_EQ((*s)["integrator"], "quasi-newton");
    EXPECT_EQ((*s)["reference"], "implicit-euler, direct, tolerance 1e-10");
    EXPECT_EQ((*s)["rollbacks"], 0);
  }
  const double coarse = few["max_distance_to_reference"].get<double>(),
               fine = many["max_distance_to_reference"].get<double>();
  EXPECT_GT(coarse, 1e-3);  // 3 iterations give something up, and the measure sees it
  EXPECT_LT(fine, coarse / 20);
  EXPECT_LT(fine, 1e-3);
  // The reference is the converged step of the same energy, not another approximation: two
  // references 1e-9 apart stay together.
  EXPECT_LT(many["max_reference_spread"].get<double>(), 1e-6);
}

// The default scene (what ./run.sh shows): a sphere pushes the knight hard enough to make its step
// matrix indefinite. Its run must stay within 1 % of the converged one, and two converged runs
// 1e-9 apart must stay together: before indefinite steps were made definite with a margin they
// drifted up to 19 % of the diagonal apart (chaos, not physics).
TEST(SimRun, DefaultSceneFollowsItsConvergedRunAndIsNotChaotic) {
  test::ProcessResult r =
      test::run_process(kSim + " run " + kScenes + "/default.json --reference --json --threads 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json summary = json_lines(r.out).back();
  EXPECT_EQ(summary["steps_tolerance_unmet"], 0);
  EXPECT_LE(summary["max_residual"].get<double>(), 1e-6);
  EXPECT_LT(summary["max_distance_to_reference"].get<double>(), 0.01);
  EXPECT_LT(summary["max_reference_spread"].get<double>(), 1e-6);
  EXPECT_LT(summary["max_speed"].get<double>(), 1.5);
}

// Issue 21 §3b: the default integrator's trajectory stays within 1 % of the bounding-box diagonal
// of the exact converged step (implicit Euler, Newton to 1e-10) on the default scene, the knight
// and a pushed body of our own; the linearized step with its definiteness shift was 10 % (max)
// off on the default scene. Newton never falls back there.
TEST(SimRun, TheDefaultIntegratorFollowsTheExactStep) {
  for (const std::string& scene :
       {std::string(kScenes) + "/default.json", std::string(kScenes) + "/knight.json --steps 300",
        std::string(kScenes) + "/../bench/scenes/octopus-push.json"}) {
    test::ProcessResult r =
        test::run_process(kSim + " run " + scene + " --reference --json --threads 1");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::vector<nlohmann::json> lines = json_lines(r.out);
    const nlohmann::json& summary = lines.back();
    EXPECT_LT(summary["max_distance_to_exact"].get<double>(), 0.01) << scene;
    EXPECT_EQ(summary["exact_reference_fallback_steps"], 0) << scene;
    int fallbacks = 0;
    for (size_t k = 0; k + 1 < lines.size(); ++k)
      fallbacks += lines[k]["newton_fallback"].get<bool>();
    EXPECT_EQ(fallbacks, 0) << scene;
  }
}

// The shipped scenes whose solver converges by design meet their own tolerance on every step (the
// cantilever's CG with block-Jacobi, capped at 200 iterations, missed 1e-8 on all of them: max
// residual 0.029). crush and pull-up are left out: they reproduce seed 000's fixed 400 QMR
// iterations per step, as their descriptions say.
TEST(SimRun, ConvergingShippedScenesMeetTheirTolerance) {
  for (const char* scene : {"cantilever", "default", "knight", "liver-creep"}) {
    test::ProcessResult r =
        test::run_process(kSim + " run " + kScenes + "/" + scene + ".json --steps 30 --json");
    ASSERT_EQ(r.exit_code, 0) << scene << ": " << r.err;
    const nlohmann::json summary = json_lines(r.out).back();
    EXPECT_EQ(summary["steps_tolerance_unmet"], 0) << scene << ": " << summary.dump();
    EXPECT_LE(summary["max_residual"].get<double>(), summary["tolerance"].get<double>()) << scene;
  }
}

TEST(SimRun, SetOverridesAndVtuOutput) {
  test::TempDir dir;
  test::ProcessResult r = test::run_process(
      kSim + " run " + kScenes + "/cantilever.json --steps 4 --json --set solver.type=qmr " +
      "--set solver.max_iterations=3 --set integrator.type=linearized-backward-euler " +
      "--vtu-every 2 " + dir.file("frames"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<nlohmann::json> lines = json_lines(r.out);
  EXPECT_LE(lines[0]["iterations"].get<int>(), 3);
  for (const char* frame :
       {"cantilever_000000.vtu", "cantilever_000002.vtu", "cantilever_000004.vtu"}) {
    std::string vtu = read_file(dir.file("frames/") + frame);
    EXPECT_NE(vtu.find("Name=\"velocity\""), std::string::npos);
    EXPECT_NE(vtu.find("Name=\"strain_energy_density\""), std::string::npos);
  }
}

TEST(SimRun, SceneErrorsNameTheJsonPath) {
  test::ProcessResult r = test::run_process(kSim + " run " + kScenes +
                                            "/default.json --steps 1 --set material.E=\"soft\"");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/material/E: expected a number, got string"), std::string::npos) << r.err;
}

// softbody-sim static: Newton converges, nothing inverts, and the equilibrium is the one the
// damped dynamics settles into (the cantilever scene: alpha = 20, at rest well before 4 s).
TEST(SimStatic, TheEquilibriumIsWhereTheDampedDynamicsSettles) {
  const std::string scene = std::string(SOFTBODY_PROJECT_MESHES) + "/../scenes/cantilever.json";
  const nlohmann::json statics = run_json("static " + scene + " --probe xmax --json --threads 1");
  EXPECT_TRUE(statics["converged"].get<bool>());
  EXPECT_LE(statics["residual"].get<double>(), 1e-10);
  EXPECT_EQ(statics["inverted_elements"], 0);
  // Euler-Bernoulli: q L^4 / (8 E I) = 7.4 mm; linear tetrahedra are stiffer in bending.
  const double drop = -statics["probes"]["xmax"][1].get<double>();
  EXPECT_GT(drop, 0.7 * 7.4e-3);
  EXPECT_LT(drop, 7.4e-3);
  test::ProcessResult r =
      test::run_process(kSim + " run " + scene + " --json --threads 1 --duration 4");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json summary = nlohmann::json::parse(r.out.substr(r.out.rfind("{\"summary\"")));
  EXPECT_NEAR(summary["final_mean_displacement_over_diagonal"].get<double>(),
              statics["mean_displacement_over_diagonal"].get<double>(),
              0.01 * statics["mean_displacement_over_diagonal"].get<double>());

  // Scene probes: every step line and the summary of run carry them; static reports them too.
  const std::string probe = " --set 'probes=[{\"name\":\"tip\",\"set\":\"xmax\"}]'";
  r = test::run_process(kSim + " run " + scene + " --json --threads 1 --steps 3" + probe);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<nlohmann::json> lines = json_lines(r.out);
  EXPECT_EQ(lines.front()["probes"]["tip"].size(), 3u);
  EXPECT_EQ(lines.back()["final_probes"]["tip"], lines[lines.size() - 2]["probes"]["tip"]);
  const nlohmann::json probed = run_json("static " + scene + " --json --threads 1" + probe);
  EXPECT_EQ(probed["probes"]["tip"], statics["probes"]["xmax"]);

  test::ProcessResult bad = test::run_process(kSim + " static " + scene + " --probe nowhere");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--probe nowhere: the mesh has no vertex set of that name"),
            std::string::npos)
      << bad.err;
  // A body that nothing fixes has no static equilibrium (anchors take no part): said, not solved.
  bad = test::run_process(kSim + " static " + scene + " --set 'fixed=[]'");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("static equilibrium needs fixed vertices"), std::string::npos) << bad.err;
}

// Seed 001 Ex. 4 (docs/validation/seed-001.md): the thesis's reference point is the free end's
// upper corner, which drops further than the end's centre because the end face turns. The two
// coarsest meshes of the published table, corotational with nodal pressure, reproduce it.
TEST(SimStatic, TheThesisBarsUpperCornerMatchesTheValidationTable) {
  const std::string scene =
      std::string(SOFTBODY_PROJECT_MESHES) + "/../docs/validation/seed001/ex4-cantilever.json";
  const std::string law = " --set material.model=corotational --set material.pressure=nodal";
  double previous_corner = 0;
  for (const auto& [cells, table_mm] : {std::pair{"12,4,4", 111.2}, std::pair{"18,6,6", 122.5}}) {
    SCOPED_TRACE(cells);
    const nlohmann::json r = run_json("static " + scene + " --json --threads 1 --increments 20" +
                                      law + " --set 'mesh.box.cells=[" + cells + "]'");
    EXPECT_TRUE(r["converged"].get<bool>());
    EXPECT_EQ(r["inverted_elements"], 0);
    const double front = -r["probes"]["upper_front"][1].get<double>();
    const double back = -r["probes"]["upper_back"][1].get<double>();
    const double centre = -r["probes"]["tip"][1].get<double>();
    const double corner = (front + back) / 2;
    EXPECT_NEAR(corner, table_mm * 1e-3, 0.005 * table_mm * 1e-3);
    EXPECT_NEAR(front, back, 0.5e-3);  // the Kuhn subdivision leans sideways, a little
    // The end face turns by ~0.5 rad: its upper edge drops (h/2)(1 - cos) ~ 3-7 mm further.
    EXPECT_GT(corner - centre, 3e-3);
    EXPECT_LT(corner - centre, 8e-3);
    EXPECT_GT(corner, previous_corner);  // refinement unlocks bending: the bar drops further
    previous_corner = corner;
  }
}

// Vertex Block Descent on a soft knight (20 kPa, StVK: not convex under compression) at 10 sweeps:
// each vertex's Newton step is halved until its share of the step's potential does not rise.
// Without that guard this run overshot and rolled back 5 steps within 0.6 s (max 0.51 m/s).
TEST(SimRun, VertexBlockDescentKeepsASoftKnightCalm) {
  const test::ProcessResult r = test::run_process(
      kSim + " run " + kScenes +
      "/knight.json --json --threads 1 --duration 0.6 --set integrator.type=vbd --set "
      "integrator.iterations=10 --set material.model=stvk-tl --set material.E=2e4");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json summary = nlohmann::json::parse(r.out.substr(r.out.rfind("{\"summary\"")));
  EXPECT_EQ(summary["rollbacks"], 0);
  EXPECT_EQ(summary["failed_steps"], 0);
  EXPECT_LT(summary["max_speed"].get<double>(), 0.45);
}

TEST(SimErrors, MalformedFileNamesFileAndLine) {
  test::TempDir dir;
  std::string bad =
      dir.write("bad.mesh", "MeshVersionFormatted 1\nDimension 3\nVertices\n2\n0 0 0 0\n1 x 0 0\n");
  test::ProcessResult r = test::run_process(kSim + " info " + bad);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad.mesh:6: expected a vertex coordinate (a number), found 'x'"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST(SimErrors, BadOptionsAreRefused) {
  test::ProcessResult r = test::run_process(kSim + " check " + kKnight + " --model ogden");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE((r.out + r.err).find("ogden"), std::string::npos);
  r = test::run_process(kSim + " info /nonexistent/mesh.msh");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/nonexistent/mesh.msh: cannot open file"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace softbody
