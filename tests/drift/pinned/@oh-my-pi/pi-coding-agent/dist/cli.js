#!/usr/bin/env bun
// @bun
var Ab=(e,t)=>{for(var s in t)Object.defineProperty(e,s,{get:t[s],enumerable:!0,configurable:!0})};var Sq=(e,t)=>()=>(e&&(t=e(e=0)),t);var Vv="1.0.0";
var Tn={};Ab(Tn,{Tokenizer:()=>Tk,estimateTokens:()=>Ux});function Ux(e){return Buffer.byteLength(e,"utf-8")+3>>2}class Tk{countTokens(e){return Ux(e)}}var Rk=Sq(()=>{});
var Kq=`Summarize the conversation above.
`;var Jq=()=>{};var Lm={};Ab(Lm,{DEFAULT_COMPACTION_SETTINGS:()=>Dk,findCutPoint:()=>Fc,prepareCompaction:()=>Pc});function Hx(e){return e.type==="message"&&e.message?.role==="user"}function Fc(e,t,s,n=new Tk){let o=0;for(let r=e.length-1;r>=t;r--)if(o+=n.countTokens(JSON.stringify(e[r])),o>=s&&Hx(e[r]))return{firstKeptEntryIndex:r,isSplitTurn:!1};return{firstKeptEntryIndex:t,isSplitTurn:!1}}function Pc(e,t=Dk){if(!t.enabled)return;let s=Fc(e,0,t.keepRecentTokens);return{firstKeptEntryId:e[s.firstKeptEntryIndex]?.id,prompt:Kq}}var Wz=20000,Dk;var Mz=Sq(()=>{Rk();Dk={enabled:!0,reserveTokens:16384,keepRecentTokens:Wz}});
var Pn={};Ab(Pn,{DEFAULT_PRUNE_CONFIG:()=>Xp,pruneToolOutputs:()=>Yp});function Yp(e,t=Xp){let s=0,n=[];for(let o=e.length-1;o>=0;o--){let r=e[o];if(t.protectedTools.includes(r.toolName)||r.tokens<Vp)continue;if(s<t.protectTokens){s+=r.tokens;continue}n.push(o)}return n}var Xp,Vp=50;var Zp=Sq(()=>{Xp={protectTokens:40000,minimumSavings:20000,protectedTools:["skill"]}});
var Gs={};Ab(Gs,{loadSettings:()=>Ls});function Ls(e){return{theme:e.theme??"dark",editor:e.editor??"vi"}}var Gw=Sq(()=>{Mz();Zp()});
async function main(){Gw();let e=await Bun.file("settings.json").json();console.log(Vv,JSON.stringify(Ls(e)),/\d+/.test(e.theme)?Yp([]):Pc([]))}main();
