// ObstacleView's blending of frame poses: continuous from what is drawn when frames and draws
// alternate, and at most one frame behind when several frames arrive between draws (a busy page
// gets them in bursts just before it draws; blending each from the unchanged drawing froze it).
import { describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { PoseSchema } from "../src/gen/softbody/v1/geometry_pb";
import { ObstacleGeometrySchema, ObstacleShape } from "../src/gen/softbody/v1/session_pb";
import { ObstacleView } from "../src/render/obstacles";

const sphereAt = (x: number) =>
  create(ObstacleGeometrySchema, { shape: ObstacleShape.SPHERE, radius: 0.01, pose: { position: { x, y: 0, z: 0 } } });
const poseAt = (x: number) => create(PoseSchema, { position: { x, y: 0, z: 0 } });

describe("obstacle pose blending", () => {
  it("blends from what is drawn when a draw comes between frames", () => {
    const view = new ObstacleView();
    view.set([sphereAt(0)], { x: 0, y: 0, z: 0 }, 0.1);
    view.framePoses([poseAt(1)]);
    view.update(0.5);
    expect(view.positions()[0].x).toBeCloseTo(0.5, 12);
    view.framePoses([poseAt(2)]);
    view.update(0.5);  // halfway from the drawn 0.5 to 2
    expect(view.positions()[0].x).toBeCloseTo(1.25, 12);
  });

  it("stays at most one frame behind when frames come faster than draws", () => {
    const view = new ObstacleView();
    view.set([sphereAt(0)], { x: 0, y: 0, z: 0 }, 0.1);
    view.update(1);
    for (let f = 1; f <= 6; ++f) view.framePoses([poseAt(f)]);
    view.update(0);  // the burst arrived just before this draw
    expect(view.positions()[0].x).toBeCloseTo(5, 12);
    view.update(1);
    expect(view.positions()[0].x).toBeCloseTo(6, 12);
  });
});
