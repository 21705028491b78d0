# SPDX-License-Identifier: MIT
# bash completion for grove (installed as share/bash-completion/completions/grove).
# By hand: source tools/grove.bash
_grove() {
  local cur prev ops op i w
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD-1]}
  ops="flatten flatten-with-path structure is-nested pack-sequence-as map map-up-to map-shape
       traverse lists-to-tuples order assert-same-structure assert-same-paths fingerprint
       convert stats demo help"

  # the operation: the first word that is not an option (or an option's value)
  op=
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=${COMP_WORDS[i]}
    case $w in
      --max-bytes|--max-output|--jobs|--replace|--to-none|--to|--from|-o|--output) ((i++)) ;;
      -*) ;;
      *) op=$w; break ;;
    esac
  done

  case $prev in
    --to) COMPREPLY=($(compgen -W "literal json wire" -- "$cur")); return ;;
    --from) COMPREPLY=($(compgen -W "literal wire" -- "$cur")); return ;;
    -o|--output) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --max-bytes|--max-output|--jobs) return ;;
    --replace|--to-none)
      COMPREPLY=($(compgen -W "list tuple dict OrderedDict defaultdict deque NoneType bool int
                               float str bytes handle star" -- "$cur"))
      return ;;
  esac

  if [[ $cur == @* ]]; then # @PATH: a file
    COMPREPLY=($(compgen -f -P @ -- "${cur#@}"))
    return
  fi
  if [[ $cur == -* ]]; then
    local opts="--help -h --version -V"
    case $op in
      demo|help) ;;
      *) opts+=" --json --max-bytes --max-output --lines --jobs --fail-fast" ;;&
      map) opts+=" --none-is-leaf=false --none-is-leaf=true" ;;
      traverse) opts+=" --top-down --bottom-up --replace --to-none" ;;
      convert) opts+=" --to --from -o --output" ;;
    esac
    COMPREPLY=($(compgen -W "$opts --" -- "$cur"))
    return
  fi
  if [[ -z $op ]]; then
    COMPREPLY=($(compgen -W "$ops" -- "$cur"))
    return
  fi
  case $op in
    help) COMPREPLY=($(compgen -W "$ops" -- "$cur")); return ;;
    map|map-up-to|map-shape)
      # the function is the first argument after the operation
      local nargs=0
      for ((i = i + 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
          --max-bytes|--max-output|--jobs) ((i++)) ;;
          -*) ;;
          *) ((nargs++)) ;;
        esac
      done
      if ((nargs == 0)); then
        COMPREPLY=($(compgen -W "id add type str none" -- "$cur"))
        return
      fi ;;
  esac
  COMPREPLY=($(compgen -W "-" -- "$cur"))
}
complete -F _grove grove
