// Dense linear solves for the contact solvers' active-set and Newton equations (codec/
// contact_solve.cpp). Written here: codec/ is standard library only, for the WebAssembly build.
#pragma once

#include <cstddef>
#include <vector>

namespace softbody::codec {

// A dense solve: a x = b for the n x n row-major a, in place (b becomes x; a is overwritten).
// False when a is singular (a pivot under 1e-13 of a's largest entry). The contact solve uses
// solve_dense below unless given another (the engine passes LAPACK's, engine/linalg/
// lapack_dense_solve.h, which factors a grasp's 441 rows 2.4x faster).
using DenseSolve = bool (*)(std::vector<double>& a, std::vector<double>& b, std::size_t n);

// Solves the dense n x n system a x = b in place (b becomes x; a becomes its LU factors) by LU
// with partial pivoting. False if singular: a pivot under 1e-13 of the matrix's largest entry.
bool solve_dense(std::vector<double>& a, std::vector<double>& b, std::size_t n);

// solve_dense, and when the system is singular, the same system with `shift` added to its
// diagonal. False if even that is singular.
bool solve_dense_or_regularized(std::vector<double>& a, std::vector<double>& b, std::size_t n,
                                double shift, DenseSolve solve = solve_dense);

}  // namespace softbody::codec
