// The browser's connection to softbody-server: one WebSocket to /ws carrying the protobuf
// envelopes of proto/softbody/v1/gateway.proto. Requests are numbered and answered by promises;
// state frames, force replies and stream ends go to callbacks. The connection comes back by itself
// after a drop (server restart, network) with exponential backoff; requests in flight then fail.
import { create, fromBinary, toBinary, type MessageInitShape } from "@bufbuild/protobuf";
import {
  ClientMessageSchema,
  ServerMessageSchema,
  type ServerMessage,
  type StreamEnded,
} from "../gen/softbody/v1/gateway_pb";
import type { SessionMoved } from "../gen/softbody/v1/cluster_pb";
import type { ForceReply, ToolCommandSchema } from "../gen/softbody/v1/interact_pb";
import type { StateFrame } from "../gen/softbody/v1/state_pb";
import { Backoff } from "./backoff";

export type ConnectionState = "connecting" | "open" | "closed";

export interface GatewayEvents {
  onState?(state: ConnectionState, detail: string): void;
  onFrame?(frame: StateFrame, bytes: number): void;
  onForce?(reply: ForceReply): void;
  onStreamEnded?(ended: StreamEnded): void;
}

// gRPC status names for the codes the server uses, for messages a person reads.
const STATUS_NAMES: Record<number, string> = {
  1: "CANCELLED",
  2: "UNKNOWN",
  3: "INVALID_ARGUMENT",
  4: "DEADLINE_EXCEEDED",
  5: "NOT_FOUND",
  6: "ALREADY_EXISTS",
  7: "PERMISSION_DENIED",
  8: "RESOURCE_EXHAUSTED",
  9: "FAILED_PRECONDITION",
  13: "INTERNAL",
  14: "UNAVAILABLE",
  16: "UNAUTHENTICATED",
};

export class GatewayError extends Error {
  constructor(
    readonly code: number,
    message: string,
    // Set when the session named in the request lives on another host now (rejoin it there).
    readonly moved?: SessionMoved,
  ) {
    super(message);
    this.name = "GatewayError";
  }
  get status(): string {
    return STATUS_NAMES[this.code] ?? `code ${this.code}`;
  }
}

// The request bodies, by their oneof case (listScenes, createSession, subscribe, ...).
export type RequestBody = Exclude<
  MessageInitShape<typeof ClientMessageSchema>["body"],
  undefined | { case: undefined; value?: undefined } | { case: "toolCommand" } | { case: "authenticate" }
>;

type WebSocketLike = WebSocket;
type WebSocketConstructor = new (url: string) => WebSocketLike;

interface Pending {
  resolve(message: ServerMessage): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

export class GatewayClient {
  private socket: WebSocketLike | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  private closedByUser = false;
  private opened: Promise<void> | null = null;
  private resolveOpened: (() => void) | null = null;
  state: ConnectionState = "closed";
  // The bearer token sent first on every (re)connection when set (servers that require one,
  // docs/security.md): a message, since a browser cannot set headers on a WebSocket and a URL
  // would land in logs.
  token: string | null = null;
  // Who the server says this connection acts as, once the token was accepted.
  identity: { subject: string; role: string } | null = null;
  // Why the server refused the token ("" when it did not).
  tokenRefusal = "";

  constructor(
    readonly url: string,
    private readonly events: GatewayEvents = {},
    private readonly WebSocketImpl: WebSocketConstructor = globalThis.WebSocket,
    private readonly backoff = new Backoff(),
    private readonly requestTimeoutMs = 30000,
  ) {}

  // Opens the connection (and keeps reopening it until close()); resolves when first open.
  connect(): Promise<void> {
    this.closedByUser = false;
    if (!this.opened) {
      this.opened = new Promise((resolve) => (this.resolveOpened = resolve));
      this.open();
    }
    return this.opened;
  }

  close(): void {
    this.closedByUser = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.socket?.close(1000, "client closed");
    this.socket = null;
    this.setState("closed", "closed by the client");
  }

  // Sends a request and resolves with the reply; rejects with GatewayError when the server refuses
  // it, or with an Error when the connection drops first.
  async request(body: RequestBody, timeoutMs = this.requestTimeoutMs): Promise<ServerMessage> {
    const socket = this.socket;
    if (!socket || socket.readyState !== 1) {
      throw new GatewayError(14, "not connected to the server");
    }
    const id = this.nextId++;
    const message = create(ClientMessageSchema, { requestId: id, body });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new GatewayError(4, `no reply to ${body.case} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      socket.send(toBinary(ClientMessageSchema, message));
    });
  }

  // Sends a tool command without waiting (answered through onForce). False when not connected.
  sendTool(command: MessageInitShape<typeof ToolCommandSchema>): boolean {
    const socket = this.socket;
    if (!socket || socket.readyState !== 1) return false;
    const message = create(ClientMessageSchema, { body: { case: "toolCommand", value: command } });
    socket.send(toBinary(ClientMessageSchema, message));
    return true;
  }

  // Bytes the browser has queued but not yet sent (back-pressure for tool commands).
  get bufferedAmount(): number {
    return this.socket?.bufferedAmount ?? 0;
  }

  private open(): void {
    this.setState("connecting", this.backoff.attempts ? `attempt ${this.backoff.attempts + 1}` : "");
    const socket = new this.WebSocketImpl(this.url);
    socket.binaryType = "arraybuffer";
    this.socket = socket;
    socket.onopen = () => {
      this.backoff.reset();
      // Sent before anything else: the server handles a connection's messages in order.
      if (this.token) this.authenticate(this.token);
      this.setState("open", "");
      this.resolveOpened?.();
    };
    socket.onmessage = (event: MessageEvent) => this.receive(event.data as ArrayBuffer);
    socket.onclose = (event: CloseEvent) => {
      if (this.socket !== socket) return;
      this.socket = null;
      const reason = event.reason ? `${event.code} ${event.reason}` : `code ${event.code}`;
      for (const [id, p] of this.pending) {
        clearTimeout(p.timer);
        p.reject(new GatewayError(14, `connection lost (${reason})`));
        this.pending.delete(id);
      }
      if (this.closedByUser) return;
      const delay = this.backoff.next();
      this.setState("closed", `connection lost (${reason}); reconnecting in ${(delay / 1000).toFixed(1)} s`);
      this.reconnectTimer = setTimeout(() => this.open(), delay);
    };
    socket.onerror = () => {
      // onclose follows with the code; nothing to add here.
    };
  }

  private authenticate(token: string): void {
    const socket = this.socket;
    if (!socket) return;
    const id = this.nextId++;
    const message = create(ClientMessageSchema, { requestId: id, body: { case: "authenticate", value: { token } } });
    const timer = setTimeout(() => this.pending.delete(id), this.requestTimeoutMs);
    this.pending.set(id, {
      resolve: (reply) => {
        if (reply.body.case === "authenticated") this.identity = { ...reply.body.value };
        this.tokenRefusal = "";
      },
      reject: (error) => {
        this.identity = null;
        this.tokenRefusal = error.message;
      },
      timer,
    });
    socket.send(toBinary(ClientMessageSchema, message));
  }

  private receive(data: ArrayBuffer): void {
    let message: ServerMessage;
    try {
      message = fromBinary(ServerMessageSchema, new Uint8Array(data));
    } catch (e) {
      this.setState(this.state, `unreadable message from the server: ${(e as Error).message}`);
      return;
    }
    const body = message.body;
    switch (body.case) {
      case "frame":
        this.events.onFrame?.(body.value, data.byteLength);
        return;
      case "force":
        this.events.onForce?.(body.value);
        return;
      case "streamEnded":
        this.events.onStreamEnded?.(body.value);
        return;
      default:
        break;
    }
    const pending = this.pending.get(message.requestId);
    if (!pending) return;
    this.pending.delete(message.requestId);
    clearTimeout(pending.timer);
    if (body.case === "error") pending.reject(new GatewayError(body.value.code, body.value.message, body.value.moved));
    else pending.resolve(message);
  }

  private setState(state: ConnectionState, detail: string): void {
    this.state = state;
    this.events.onState?.(state, detail);
  }
}

