// Which state frames belong to the subscription the page is on. Moving to another session (or
// resubscribing after a bad frame) resets the frame pipeline at once, but frames of the stream
// being left can still be on the wire: their deltas refer to frames the reset pipeline no longer
// has, so decoding them fails ("Could not decode a state frame"). A new stream starts at
// sequence 0 with a keyframe (proto/softbody/v1/state.proto), so after a switch frames are
// dropped until a sequence-0 frame of the expected size arrives.
export interface FrameHeader {
  sequence: bigint | number;
  numVertices: number;
}

export class SubscriptionFilter {
  private waitingForStart = false;
  private vertexCount = -1;
  private dropped = 0;

  /** A new subscription for a body of `vertexCount` streamed vertices is being asked for. */
  switched(vertexCount: number): void {
    this.waitingForStart = true;
    this.vertexCount = vertexCount;
  }

  /** Whether to decode this frame; false for a frame of a stream the page has left. */
  accepts(frame: FrameHeader): boolean {
    const ours = frame.numVertices === this.vertexCount && (!this.waitingForStart || Number(frame.sequence) === 0);
    if (!ours) {
      ++this.dropped;
      return false;
    }
    this.waitingForStart = false;
    return true;
  }

  /** Frames dropped as belonging to a stream the page had left. */
  get staleFrames(): number {
    return this.dropped;
  }
}
