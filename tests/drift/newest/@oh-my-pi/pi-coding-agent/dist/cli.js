#!/usr/bin/env bun
// @bun
var Gx=(t,e)=>{for(var n in e)Object.defineProperty(t,n,{get:e[n],enumerable:!0,configurable:!0})};var Lz=(t,e)=>()=>(t&&(e=t(t=0)),e);var Qv="1.1.0";
var Hm={};Gx(Hm,{Tokenizer:()=>Zz,estimateTokens:()=>Wu});function Wu(t){return Buffer.byteLength(t,"utf-8")+3>>2}class Zz{countTokens(t){return Wu(t)}}var Op=Lz(()=>{});
var aB=`Summarize the conversation above.
`;var cD=()=>{};var eF={};Gx(eF,{DEFAULT_COMPACTION_SETTINGS:()=>Rt,findCutPoint:()=>Qw,prepareCompaction:()=>Er});function Yy(t){return t.type==="message"&&t.message?.role==="user"}function Qw(t,e,n,s=new Zz){let r=0;for(let i=t.length-1;i>=e;i--)if(r+=s.countTokens(JSON.stringify(t[i])),r>=n&&Yy(t[i]))return{firstKeptEntryIndex:i,isSplitTurn:!1};return{firstKeptEntryIndex:e,isSplitTurn:!1}}function Er(t,e=Rt){if(!e.enabled)return;let n=Qw(t,0,e.keepRecentTokens);return{firstKeptEntryId:t[n.firstKeptEntryIndex]?.id,prompt:aB}}var Uv=20000,Rt;var Io=Lz(()=>{Op();Rt={enabled:!0,reserveTokens:16384,keepRecentTokens:Uv}});
var Kn={};Gx(Kn,{DEFAULT_PRUNE_CONFIG:()=>Ml,MIN_PRUNE_TOKENS:()=>Nk,pruneToolOutputs:()=>Jb});function Jb(t,e=Ml){let n=0,s=[];for(let r=t.length-1;r>=0;r--){let i=t[r];if(e.protectedTools.includes(i.toolName)||i.tokens<=Nk)continue;if(n<e.protectTokens){n+=i.tokens;continue}s.push(r)}return s}var Ml,Nk=50;var Xo=Lz(()=>{Ml={protectTokens:30000,minimumSavings:20000,protectedTools:["skill"]}});
var Bs={};Gx(Bs,{loadSettings:()=>Kc});function Kc(t){return{theme:t.theme??"light",editor:t.editor??"vi"}}var Dw=Lz(()=>{Io();Xo()});
async function main(){Dw();let t=await Bun.file("settings.json").json();console.log(Qv,JSON.stringify(Kc(t)),/\d+/.test(t.theme)?Jb([]):Er([]))}main();
