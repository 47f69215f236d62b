/**
 * Reading node placement from onnxruntime-web's verbose session log: the lines its `VerifyEachNodeIsAssignedToAnEp`
 * prints (one summary when every node is on one provider; a summary and one `OpType (name)` line per node per
 * provider otherwise), as the page's console carries them.
 */
import { describe, expect, it } from 'vitest';
import { offProviderNodes } from '../../../../src/models/engines/browser/node-placement.js';

const prefix =
  '2026-12-02 07:25:13.758749 [V:onnxruntime:, session_state.cc:1380 VerifyEachNodeIsAssignedToAnEp]';

describe('offProviderNodes', () => {
  it('every node on the requested provider: 0 off it', () => {
    const lines = [
      `${prefix} Node placements`,
      `${prefix}  All nodes placed on [CPUExecutionProvider]. Number of nodes: 69`,
    ];
    expect(offProviderNodes(lines, 'wasm')).toEqual({ count: 0, opTypes: '', total: 69 });
  });

  it('mixed placement: counts the other providers’ nodes and their op types, most frequent first', () => {
    const lines = [
      `${prefix} Node placements`,
      `${prefix}  Node(s) placed on [WebGpuExecutionProvider]. Number of nodes: 3`,
      `${prefix}   MatMul (m0)`,
      `${prefix}   MatMul (m1)`,
      `${prefix}   Softmax (s0)`,
      `${prefix}  Node(s) placed on [CPUExecutionProvider]. Number of nodes: 3`,
      `${prefix}   Shape (shape_1)`,
      `${prefix}   Gather (g)`,
      `${prefix}   Shape (shape_2)`,
      '[V:onnxruntime:, graph.cc:1 Other] Shape (not a placement line)',
    ];
    expect(offProviderNodes(lines, 'webgpu')).toEqual({ count: 3, opTypes: 'Shape×2, Gather×1', total: 6 });
    expect(offProviderNodes(lines, 'wasm')).toEqual({
      count: 3,
      opTypes: 'MatMul×2, Softmax×1',
      total: 6,
    });
  });

  it('every node on another provider: all of them off it; no placement lines: unknown', () => {
    const lines = [`${prefix}  All nodes placed on [CPUExecutionProvider]. Number of nodes: 12`];
    expect(offProviderNodes(lines, 'webgpu')).toEqual({ count: 12, opTypes: '', total: 12 });
    expect(offProviderNodes(['something else'], 'wasm')).toBeUndefined();
  });
});
