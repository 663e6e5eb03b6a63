import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { classifyFailure } from './mcp-upstreams.js';

const sdk = { McpError, ErrorCode };

describe('classifyFailure', () => {
  it("calls the upstream's JSON-RPC errors its answers, which leave the connection alone", () => {
    expect(classifyFailure(new McpError(ErrorCode.InvalidParams, 'Unknown tool: x'), sdk)).toBe('error_response');
    expect(classifyFailure(new McpError(ErrorCode.InternalError, 'boom'), sdk)).toBe('error_response');
    expect(classifyFailure(new McpError(-32099, 'a server-defined code'), sdk)).toBe('error_response');
  });

  it('tells a result the schema refused, a timeout and a closed connection apart', () => {
    const refused = z.object({ content: z.array(z.string()) }).safeParse({ content: 1 });
    expect(classifyFailure(refused.error, sdk)).toBe('invalid_result');
    expect(classifyFailure(new McpError(ErrorCode.RequestTimeout, 'Request timed out'), sdk)).toBe('timeout');
    expect(classifyFailure(Object.assign(new Error('aborted'), { name: 'AbortError' }), sdk)).toBe('timeout');
    expect(classifyFailure(new McpError(ErrorCode.ConnectionClosed, 'Connection closed'), sdk)).toBe('closed');
  });

  it('takes anything else for a failure of the transport', () => {
    expect(classifyFailure(new TypeError('fetch failed'), sdk)).toBe('transport');
    expect(classifyFailure(new Error('Not connected'), sdk)).toBe('transport');
    expect(classifyFailure('a string', sdk)).toBe('transport');
  });
});
