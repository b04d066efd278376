#include "engine/contact/surface_bvh.h"

#include <algorithm>

namespace softbody {

SurfaceBvh::SurfaceBvh(std::vector<Triangle> triangles, const Vec3Array& positions)
    : triangles_(std::move(triangles)) {
  const auto n = static_cast<Index>(triangles_.size());
  std::vector<Vec3> centroids(triangles_.size());
  for (size_t t = 0; t < triangles_.size(); ++t) {
    const Triangle& tri = triangles_[t];
    centroids[t] =
        (positions[static_cast<size_t>(tri[0])] + positions[static_cast<size_t>(tri[1])] +
         positions[static_cast<size_t>(tri[2])]) /
        3;
  }
  order_.resize(triangles_.size());
  for (Index t = 0; t < n; ++t) order_[static_cast<size_t>(t)] = t;
  nodes_.reserve(2 * triangles_.size() / static_cast<size_t>(kLeafSize) + 1);
  if (n > 0) {
    nodes_.resize(1);
    build(0, 0, n, centroids);
  }
  refit(positions);
}

void SurfaceBvh::build(Index node, Index first, Index count, const std::vector<Vec3>& centroids) {
  if (count <= kLeafSize) {
    nodes_[static_cast<size_t>(node)].first = first;
    nodes_[static_cast<size_t>(node)].count = count;
    return;
  }
  Box3 box;
  for (Index i = first; i < first + count; ++i)
    box.grow(centroids[static_cast<size_t>(order_[static_cast<size_t>(i)])]);
  int axis = 0;
  (box.max - box.min).maxCoeff(&axis);
  const auto begin = order_.begin() + first, middle = begin + count / 2, end = begin + count;
  std::nth_element(begin, middle, end, [&](Index a, Index b) {
    return centroids[static_cast<size_t>(a)](axis) < centroids[static_cast<size_t>(b)](axis);
  });
  // Children are made as a pair (left, left + 1), after their parent.
  const auto left = static_cast<Index>(nodes_.size());
  nodes_.resize(nodes_.size() + 2);
  nodes_[static_cast<size_t>(node)].left = left;
  build(left, first, count / 2, centroids);
  build(left + 1, first + count / 2, count - count / 2, centroids);
}

void SurfaceBvh::refit(const Vec3Array& positions) {
  refit(positions, nullptr);
}

void SurfaceBvh::refit_swept(const Vec3Array& start, const Vec3Array& end) {
  refit(start, &end);
}

void SurfaceBvh::refit(const Vec3Array& positions, const Vec3Array* also) {
  // Children always come after their parent, so a reverse sweep sees children first.
  for (auto i = static_cast<std::ptrdiff_t>(nodes_.size()) - 1; i >= 0; --i) {
    Node& node = nodes_[static_cast<size_t>(i)];
    Box3 box;
    if (node.left < 0) {
      for (Index k = node.first; k < node.first + node.count; ++k)
        for (Index v : triangles_[static_cast<size_t>(order_[static_cast<size_t>(k)])]) {
          box.grow(positions[static_cast<size_t>(v)]);
          if (also) box.grow((*also)[static_cast<size_t>(v)]);
        }
    } else {
      box.grow(nodes_[static_cast<size_t>(node.left)].box);
      box.grow(nodes_[static_cast<size_t>(node.left + 1)].box);
    }
    node.box = box;
  }
}

}  // namespace softbody
