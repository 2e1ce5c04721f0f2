/**
 * Comments and string literals of TypeScript/AssemblyScript (and C) source, found left to right by one alternation as
 * a tokenizer finds them: a '//' inside a string is string, a quote inside a comment is comment. An unterminated one
 * runs to the end. Global: for String.replace (which starts from 0 whatever lastIndex holds).
 */
export const COMMENT_OR_STRING = /\/\/[^\n]*|\/\*[\s\S]*?(?:\*\/|$)|"(?:[^"\\]|\\[\s\S]?)*"?|'(?:[^'\\]|\\[\s\S]?)*'?|`(?:[^`\\]|\\[\s\S]?)*`?/g;
