import { describe, expect, it } from 'vitest';
import { scopeOf } from '../../test/helpers.js';
import type { ExpressionError } from './errors.js';
import { compileTemplate } from './template.js';

const render = (source: string, context: unknown = {}) => compileTemplate(source).render(scopeOf(context));

describe('templates', () => {
  it('replaces {{ expression }} with its value', () => {
    expect(render('警告：大变更（{{ files.changed_count }} 文件），建议分步？', { files: { changed_count: 25 } })).toBe(
      '警告：大变更（25 文件），建议分步？',
    );
    expect(render('{{a}}-{{ b }}', { a: 1, b: true })).toBe('1-true');
  });

  it('renders lists like the original design ("[chk-001, chk-002]"), missing as nothing, objects as JSON', () => {
    expect(render('Checklist 未完成: {{ ids }}', { ids: ['chk-001', 'chk-002'] })).toBe('Checklist 未完成: [chk-001, chk-002]');
    expect(render('[{{ nope }}]')).toBe('[]');
    expect(render('{{ o }}', { o: { a: [1] } })).toBe('{"a":[1]}');
    expect(render('{{ l }}', { l: [{ a: 1 }, null, 2] })).toBe('[{"a":1}, , 2]');
  });

  it("redacts credentials in the values it substitutes (the agent's text), not in the rule's own", () => {
    const command = `curl -H "Authorization: Bearer abc123" https://bot:pw@example.com -d token=ghp_${'a'.repeat(36)}`;
    expect(render('{{ tool.input.command }} needs approval', { tool: { input: { command } } })).toBe(
      'curl -H "Authorization: Bearer [redacted]" https://bot:[redacted]@example.com -d token=[redacted] needs approval',
    );
  });

  it('is constant without expressions', () => {
    const template = compileTemplate('plain text');
    expect(template.constant).toBe(true);
    expect(template.render(scopeOf({}))).toBe('plain text');
  });

  it('finds the closing braces outside string literals', () => {
    expect(render('{{ "}}" }}!')).toBe('}}!');
    expect(render(`{{ default(x, '{{') }}`)).toBe('{{');
  });

  it('reports errors with their offset in the template', () => {
    const error = (source: string) => {
      try {
        compileTemplate(source);
      } catch (e) {
        return e as ExpressionError;
      }
      throw new Error('compiled');
    };
    expect(error('abc {{ x')).toMatchObject({ offset: 4, message: '"{{" without a matching "}}"' });
    expect(error('abc {{ }}')).toMatchObject({ offset: 4, message: 'empty "{{ }}"' });
    expect(error('ab {{ a > }}')).toMatchObject({ offset: 9 });
    expect(error('{{ x.__proto__ }}').message).toMatch(/cannot be read/);
  });

  it('caps what it renders at the protocol text limit', () => {
    const text = render('{{ s }}{{ s }}{{ s }}', { s: 'x'.repeat(10_000) });
    expect(text.length).toBe(16 * 1024);
    expect(text.endsWith('…')).toBe(true);
  });
});
