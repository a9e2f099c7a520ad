_wfctl_completion() {
    local IFS=$'
'
    COMPREPLY=( $( env COMP_WORDS="${COMP_WORDS[*]}" \
                   COMP_CWORD=$COMP_CWORD \
                   _WFCTL_COMPLETE=complete_bash $1 ) )
    local candidate
    for candidate in "${COMPREPLY[@]}"; do
        if [[ $candidate == *[[:space:]\'\"\\\$\&\;\(\)\<\>\|\*\?\!\`]* ]]; then
            compopt -o filenames 2>/dev/null
            break
        fi
    done
    return 0
}

complete -o default -F _wfctl_completion wfctl
