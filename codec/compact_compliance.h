// A tool contact problem's compliance W in fewer bytes for the wire (issue 22: haptics over slow
// links). A reply's problem was 3m x 3m doubles (~26 kB for 19 contacts and candidates, once per
// step): on a 300 ms link with 2 % loss TCP carries a few tens of kB a second, so each problem
// held the reply stream for most of a second. W is symmetric, so its upper triangle suffices, and
// float32's 7 digits are far finer than a haptic force needs: 4.1x fewer bytes for W.
//
// Rounding must not make W indefinite: a surface's compliance over many contacts is nearly
// singular, and projected Gauss-Seidel on an indefinite W does not settle. So the encoder adds a
// bound on the rounding's effect to every diagonal entry: with E the rounding error of each entry
// (|E_ij| <= u |entry|, u = 2^-24) and R the largest absolute row sum of W,
//   lambda_min(decoded) >= lambda_min(W) + delta - ||E||_2,   ||E||_2 <= max_i sum_j |E_ij|
// (E is symmetric) <= u (R + delta), so delta = 2 u R keeps the decoded matrix at least as
// positive definite as W. It makes the contacts more compliant by 2uR (~1e-5 of W's largest
// entry for 60 rows): a force ~1e-5 weaker, far below what a hand feels. Standard library only.
#pragma once

#include <cstddef>
#include <vector>

namespace softbody::codec {

// W (rows x rows, row-major, symmetric) -> its upper triangle row by row (row i from column i:
// rows (rows + 1) / 2 entries) as float32, diagonal raised as above.
std::vector<float> encode_compliance_upper(const std::vector<double>& w, int rows);

// The encoder's output -> the full symmetric matrix (rows x rows, row-major). False (w cleared)
// when the size is not rows (rows + 1) / 2 or an entry is not finite.
bool decode_compliance_upper(const float* upper, std::size_t size, int rows,
                             std::vector<double>& w);

}  // namespace softbody::codec
