
_wfctl_completion() {
    local IFS=$'\n'
    local words=() word gap cword=0 i line
    words[0]=${COMP_WORDS[0]}
    line=${COMP_LINE:0:${COMP_POINT:-${#COMP_LINE}}}
    line=${line#"${COMP_WORDS[0]}"}
    for (( i = 1; i <= COMP_CWORD; i++ )); do
        word=${COMP_WORDS[i]}
        gap=${line%%[![:space:]]*}
        line=${line#"$gap"}
        line=${line#"$word"}
        if [[ -n ${COMP_LINE+set} && -z $gap ]] && [[ $word == [=:]* || ${words[cword]} == *[=:] ]]; then
            words[cword]+=$word
        else
            words[++cword]=$word
        fi
    done
    local whole=${words[cword]} piece=${COMP_WORDS[COMP_CWORD]}
    [[ -z ${piece//[=:]/} ]] && piece=""
    local kept=${whole%"$piece"} head=""
    [[ $whole == -*=* ]] && head="${whole%%=*}="
    COMPREPLY=( $( env COMP_WORDS="${words[*]}" \
                   COMP_CWORD=$cword \
                   _WFCTL_COMPLETE=complete_bash $1 ) )
    local candidate
    for i in "${!COMPREPLY[@]}"; do
        candidate=$head${COMPREPLY[i]}
        [[ $candidate == "$kept"* ]] && COMPREPLY[i]=${candidate#"$kept"}
    done
    for candidate in "${COMPREPLY[@]}"; do
        if [[ $candidate == *[[:space:]\'\"\\\$\&\;\(\)\<\>\|\*\?\!\`]* ]]; then
            compopt -o filenames 2>/dev/null
            break
        fi
    done
    return 0
}

complete -o default -F _wfctl_completion wfctl

