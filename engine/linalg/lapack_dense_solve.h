// The contact solve's dense systems (codec::DenseSolve) through LAPACK's LU (dgetrf/dgetrs on
// the BLAS CHOLMOD runs on): codec/ must stay standard library only for the browser, but the
// engine's grasp solves 300-441 rows tens of times a step, where LAPACK's blocked BLAS-3 LU runs
// 2.4x faster than the codec's own (bench/RESULTS.md).
#pragma once

#include <cstddef>
#include <vector>

namespace softbody {

// codec::DenseSolve's contract: a (row-major n x n) x = b in place, false when a pivot is under
// 1e-13 of a's largest entry (the codec's own test; LAPACK pivots on A^T's rows, the codec on
// A's, so a nearly singular system may be called singular by one and not the other).
bool lapack_dense_solve(std::vector<double>& a, std::vector<double>& b, std::size_t n);

}  // namespace softbody
