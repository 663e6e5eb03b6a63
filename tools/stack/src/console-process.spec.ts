import { describe, expect, it } from 'vitest';
import { nextReadyLine } from './console-process.js';

describe('nextReadyLine', () => {
  it('reports ready with the port of the Local line once Next says Ready', () => {
    const recognise = nextReadyLine();
    expect(recognise('▲ Next.js 16.4.6')).toBeUndefined();
    expect(recognise('- Local:         http://127.0.0.1:35973')).toBeUndefined();
    expect(recognise('- Network:       http://127.0.0.1:35973')).toBeUndefined();
    expect(recognise('✓ Ready in 199ms')).toEqual({ event: 'ready', service: 'console', port: 35973 });
  });

  it('waits for the port before calling it ready', () => {
    const recognise = nextReadyLine();
    expect(recognise('✓ Ready in 199ms')).toBeUndefined();
    expect(recognise('- Local:        http://localhost:3000')).toBeUndefined();
    expect(recognise('✓ Ready in 5ms')).toMatchObject({ port: 3000 });
  });
});
