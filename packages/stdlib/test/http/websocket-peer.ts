/**
 * The server side of a WebSocket (RFC 6455), as small as the tests need:
 * the opening handshake's answer, unmasked short frames, and a raw-socket
 * peer that reads the upgrade request itself (for servers that misbehave
 * after the handshake). Shared by the stdlib and CLI tests.
 */
import { createHash } from "node:crypto";
import type { Socket } from "node:net";

/** Answers an opening handshake that sent `key` (Sec-WebSocket-Key). */
export function acceptHandshake(socket: Socket, key: string): void {
  const accept = createHash("sha1").update(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest("base64");
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
}

/** A server frame (unmasked, payload under 64 KiB). */
export function frame(opcode: number, payload: Buffer): Buffer {
  const head = payload.length < 126 ? Buffer.from([0x80 | opcode, payload.length]) : Buffer.from([0x80 | opcode, 126, payload.length >> 8, payload.length & 0xff]);
  return Buffer.concat([head, payload]);
}

/** For a plain `net` server: reads the upgrade request off `socket`,
 * answers its handshake, then calls `after` with the socket. */
export function onUpgradeRequest(socket: Socket, after: (socket: Socket) => void): void {
  let head = "";
  const onData = (chunk: Buffer) => {
    head += chunk.toString("latin1");
    if (!head.includes("\r\n\r\n")) return;
    socket.off("data", onData);
    acceptHandshake(socket, /^sec-websocket-key:\s*(.+)$/im.exec(head)![1]!.trim());
    after(socket);
  };
  socket.on("data", onData);
}
