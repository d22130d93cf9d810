// The token vocabulary and the lexer land here (issue: foundation).
export {};
