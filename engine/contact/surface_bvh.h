// A bounding-volume hierarchy (axis-aligned boxes) over a body's boundary triangles, for contact
// detection (issue 22). The tree's shape is built once from the rest positions (the topology never
// changes); each step only refits the boxes to the current positions, bottom-up, in O(triangles).
// A deforming body's tree then stays valid (every box holds its triangles) though it may loosen;
// queries stay exact.
#pragma once

#include <functional>
#include <limits>
#include <vector>

#include "engine/types.h"

namespace softbody {

struct Box3 {
  Vec3 min = Vec3::Constant(std::numeric_limits<double>::infinity());
  Vec3 max = Vec3::Constant(-std::numeric_limits<double>::infinity());
  void grow(const Vec3& p) {
    min = min.cwiseMin(p);
    max = max.cwiseMax(p);
  }
  void grow(const Box3& b) {
    min = min.cwiseMin(b.min);
    max = max.cwiseMax(b.max);
  }
  bool overlaps(const Box3& b) const {
    return (min.array() <= b.max.array()).all() && (b.min.array() <= max.array()).all();
  }
  // Squared distance from p to the box (0 inside).
  double squared_distance(const Vec3& p) const {
    return ((min - p).cwiseMax(p - max)).cwiseMax(0.0).squaredNorm();
  }
};

class SurfaceBvh {
 public:
  // Builds the tree's shape over `triangles` at `positions` (median splits of the centroids along
  // the longest axis) and fits it.
  SurfaceBvh(std::vector<Triangle> triangles, const Vec3Array& positions);

  // Fits every box to `positions` (the same vertices the tree was built on).
  void refit(const Vec3Array& positions);
  // Fits every box to its triangles at `start` and at `end`: each box then holds its triangles
  // all along a step that moves every vertex linearly from start to end (continuous detection).
  void refit_swept(const Vec3Array& start, const Vec3Array& end);
  // Calls `visit(triangle index)` for every triangle whose box overlaps `query`.
  void query(const Box3& query, const std::function<void(Index)>& visit) const {
    for_each_overlapping(query, visit);
  }
  // The same, inline (self contact queries once per boundary vertex: no call through
  // std::function and no allocation per query).
  template <typename Visit>
  void for_each_overlapping(const Box3& query, Visit&& visit) const {
    if (nodes_.empty()) return;
    // Depth first: at most one pending sibling per level (median splits: depth ~ log2 n).
    Index stack[kMaxDepth];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
      const Node& node = nodes_[static_cast<size_t>(stack[--top])];
      if (!node.box.overlaps(query)) continue;
      if (node.left < 0) {
        for (Index k = node.first; k < node.first + node.count; ++k)
          visit(order_[static_cast<size_t>(k)]);
      } else {
        stack[top++] = node.left;
        stack[top++] = node.left + 1;
      }
    }
  }

  // The triangle nearest to p closer than `limit` (-1 if none; one exactly at `limit` is not
  // returned), by branch and bound: `distance(t)` is triangle t's distance from p, and a box
  // farther than the best so far is skipped. Children are visited nearer first, so the bound
  // tightens fast. Exact ties go to the lower-numbered triangle (boxes and triangles are compared
  // in floating point, so near-ties may depend on the tree's shape; a given tree answers the same
  // every time).
  template <typename Distance>
  Index nearest(const Vec3& p, double limit, Distance&& distance) const {
    Index best = -1;
    double best_distance = limit;
    if (nodes_.empty()) return best;
    Index stack[kMaxDepth];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
      const Node& node = nodes_[static_cast<size_t>(stack[--top])];
      const double bound = best_distance * best_distance;
      if (node.box.squared_distance(p) > bound) continue;
      if (node.left < 0) {
        for (Index k = node.first; k < node.first + node.count; ++k) {
          const Index t = order_[static_cast<size_t>(k)];
          const double d = distance(t);
          if (d < best_distance || (d == best_distance && best >= 0 && t < best)) {
            best_distance = d;
            best = t;
          }
        }
      } else {
        const Index near =
            nodes_[static_cast<size_t>(node.left)].box.squared_distance(p) <=
                    nodes_[static_cast<size_t>(node.left + 1)].box.squared_distance(p)
                ? node.left
                : node.left + 1;
        stack[top++] = near == node.left ? node.left + 1 : node.left;  // the farther, later
        stack[top++] = near;
      }
    }
    return best;
  }

  const std::vector<Triangle>& triangles() const { return triangles_; }
  // The box of every triangle (as last fitted; empty without triangles).
  Box3 bounds() const { return nodes_.empty() ? Box3{} : nodes_.front().box; }

 private:
  struct Node {
    Box3 box;
    // Leaves: triangles [first, first + count) of order_; inner nodes: children left, left + 1.
    Index first = 0, count = 0, left = -1;
  };
  void refit(const Vec3Array& positions, const Vec3Array* also);
  // Splits `node`'s triangles [first, first + count) of order_ into children until leaves are
  // small.
  void build(Index node, Index first, Index count, const std::vector<Vec3>& centroids);

  static constexpr Index kLeafSize = 4;
  // Stack room of for_each_overlapping: it holds at most one node per level plus one, and median
  // splits make the depth log2 of the triangle count (under 64 for any mesh that fits in memory).
  static constexpr int kMaxDepth = 128;
  std::vector<Triangle> triangles_;
  std::vector<Index> order_;  // triangle indices, leaf by leaf
  std::vector<Node> nodes_;   // root first; children after their parent
};

}  // namespace softbody
